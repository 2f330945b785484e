package dev.flows.kernel;

import java.util.Objects;
import java.util.Optional;

/**
 * The one root of every refusal flows raises. It carries a stable {@link ErrorCode}, where the
 * problem is (a JSON pointer, a step id, a file position: whatever names the place best) and how to
 * fix it, so that a CLI can print one line and a script can branch on the code.
 */
public class FlowsException extends RuntimeException {
  private final ErrorCode code;
  private final String place;
  private final String fix;
  private final boolean retryable;

  public FlowsException(ErrorCode code, String message, String place, String fix) {
    this(code, message, place, fix, code.retryable(), null);
  }

  public FlowsException(
      ErrorCode code,
      String message,
      String place,
      String fix,
      boolean retryable,
      Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code");
    this.place = place == null ? "" : place;
    this.fix = fix == null ? "" : fix;
    this.retryable = retryable;
  }

  public ErrorCode code() {
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

  public boolean retryable() {
    return retryable;
  }

  /** One line for humans: {@code code: message (at place) fix: ...}. */
  public String oneLine() {
    StringBuilder b = new StringBuilder(code.wire()).append(": ").append(getMessage());
    place().ifPresent(p -> b.append(" (at ").append(p).append(')'));
    fix().ifPresent(f -> b.append(" fix: ").append(f));
    return b.toString();
  }
}
