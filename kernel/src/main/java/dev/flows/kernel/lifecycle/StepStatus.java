package dev.flows.kernel.lifecycle;

/** Where one step is. Mirrors the Postgres enum {@code flows.step_status}. */
public enum StepStatus {
  /** Some dependency has not succeeded yet. */
  WAITING("waiting", false),
  /** Claimable once its {@code not_before} time has come. */
  READY("ready", false),
  /** An attempt holds a lease. */
  RUNNING("running", false),
  /** Stopped until an operator resolves it (e.g. effect_outcome_unknown). */
  PARKED("parked", false),
  SUCCEEDED("succeeded", true),
  FAILED("failed", true),
  CANCELED("canceled", true);

  private final String wire;
  private final boolean terminal;

  StepStatus(String wire, boolean terminal) {
    this.wire = wire;
    this.terminal = terminal;
  }

  public String wire() {
    return wire;
  }

  public boolean terminal() {
    return terminal;
  }

  public static StepStatus fromWire(String wire) {
    for (StepStatus s : values()) {
      if (s.wire.equals(wire)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown step status " + wire);
  }
}
