package dev.flows.kernel.journal;

/** Why a step attempt ended. Mirrors the Postgres enum {@code flows.completion_reason}. */
public enum CompletionReason {
  SUCCESS("success"),
  VERIFICATION_FAILED("verification_failed"),
  RETRIES_EXHAUSTED("retries_exhausted"),
  LEASE_EXPIRED("lease_expired"),
  CRASHED("crashed"),
  TIMEOUT("timeout"),
  WORKER_ERROR("worker_error"),
  BUDGET_EXCEEDED("budget_exceeded"),
  CANCELED("canceled"),
  /**
   * The body gave its attempt back while it waits on a child run ({@link StepOutcome.Suspended}).
   */
  SUSPENDED("suspended");

  private final String wire;

  CompletionReason(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static CompletionReason fromWire(String wire) {
    for (CompletionReason r : values()) {
      if (r.wire.equals(wire)) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown completion reason " + wire);
  }
}
