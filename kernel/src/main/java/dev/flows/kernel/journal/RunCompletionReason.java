package dev.flows.kernel.journal;

/** Why a run ended. */
public enum RunCompletionReason {
  SUCCESS("success"),
  STEP_FAILED("step_failed"),
  CANCELED("canceled"),
  BUDGET_EXCEEDED("budget_exceeded");

  private final String wire;

  RunCompletionReason(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static RunCompletionReason fromWire(String wire) {
    for (RunCompletionReason r : values()) {
      if (r.wire.equals(wire)) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown run completion reason " + wire);
  }
}
