package dev.flows.kernel;

import java.util.Objects;

/**
 * A run spec was refused by the fail-closed parser. {@link #pointer()} is an RFC 6901 JSON pointer
 * to the offending place; the empty pointer is the whole document (as when it is not JSON at all).
 */
public final class InvalidSpecException extends FlowsException {
  private final String pointer;

  public InvalidSpecException(String message, String pointer, String fix) {
    // The root pointer "" leaves place() empty: the whole document is no narrower place.
    super(ErrorCode.INVALID_SPEC, message, pointer, fix);
    this.pointer = Objects.requireNonNull(pointer, "pointer");
  }

  /** The RFC 6901 pointer, exactly: {@code ""} is the root, {@code "/"} the key "" at the root. */
  public String pointer() {
    return pointer;
  }
}
