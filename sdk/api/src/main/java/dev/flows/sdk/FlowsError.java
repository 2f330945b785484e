package dev.flows.sdk;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The one root of every exception the public API throws. It carries a stable code (the wire name
 * listed under "Refusal codes" in SURFACE.md, e.g. {@code mcp_tool_error}), where the problem is
 * and how to fix it, so that a caller can branch on the code and print one line. A flow body may
 * throw one: the attempt fails with its code as the diagnostic.
 */
public class FlowsError extends RuntimeException {
  private final String code;
  private final String place;
  private final String fix;
  private final boolean retryable;

  public FlowsError(
      String code,
      String message,
      @Nullable String place,
      @Nullable String fix,
      boolean retryable,
      @Nullable Throwable cause) {
    super(message, cause);
    if (code == null || code.isBlank()) {
      throw new IllegalArgumentException("a FlowsError needs a code");
    }
    this.code = code;
    this.place = place == null ? "" : place;
    this.fix = fix == null ? "" : fix;
    this.retryable = retryable;
  }

  /** The stable code, as SURFACE.md and the journal spell it. */
  public String code() {
    return code;
  }

  /** Where the problem is; empty when it has no useful place. */
  public Optional<String> place() {
    return place.isEmpty() ? Optional.empty() : Optional.of(place);
  }

  /** What the caller can do about it; empty when nothing but a retry helps. */
  public Optional<String> fix() {
    return fix.isEmpty() ? Optional.empty() : Optional.of(fix);
  }

  /** Whether the same call may succeed if made again unchanged. */
  public boolean retryable() {
    return retryable;
  }

  /** One line for humans: {@code code: message (at place) fix: ...}. */
  public String oneLine() {
    StringBuilder b = new StringBuilder(code).append(": ").append(getMessage());
    place().ifPresent(p -> b.append(" (at ").append(p).append(')'));
    fix().ifPresent(f -> b.append(" fix: ").append(f));
    return b.toString();
  }
}
