package dev.flows.kernel;

/**
 * The caller does not hold the live lease of the attempt it names (it expired, was revoked, or
 * belongs to another attempt). Nothing was written.
 */
public final class LeaseConflictException extends FlowsException {
  public LeaseConflictException(String message, String place) {
    super(
        ErrorCode.LEASE_CONFLICT,
        message,
        place,
        "stop the attempt; the journal owns its fate (it will be expired and retried)");
  }
}
