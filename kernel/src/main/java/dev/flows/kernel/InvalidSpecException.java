package dev.flows.kernel;

/** A run spec was refused by the fail-closed parser; {@link #place()} is a JSON pointer. */
public final class InvalidSpecException extends FlowsException {
  public InvalidSpecException(String message, String pointer, String fix) {
    super(ErrorCode.INVALID_SPEC, message, pointer.isEmpty() ? "/" : pointer, fix);
  }

  public String pointer() {
    return place().orElse("/");
  }
}
