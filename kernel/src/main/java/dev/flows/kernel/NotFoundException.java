package dev.flows.kernel;

/** A run or step id that the journal does not know. */
public final class NotFoundException extends FlowsException {
  public NotFoundException(ErrorCode code, String message, String place) {
    super(code, message, place, "check the id with `flows runs list`");
  }
}
