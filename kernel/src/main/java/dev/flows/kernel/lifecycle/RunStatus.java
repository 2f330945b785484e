package dev.flows.kernel.lifecycle;

/** Where one run is. Mirrors the Postgres enum {@code flows.run_status}. */
public enum RunStatus {
  RUNNING("running", false),
  PARKED("parked", false),
  SUCCEEDED("succeeded", true),
  FAILED("failed", true),
  CANCELED("canceled", true);

  private final String wire;
  private final boolean terminal;

  RunStatus(String wire, boolean terminal) {
    this.wire = wire;
    this.terminal = terminal;
  }

  public String wire() {
    return wire;
  }

  public boolean terminal() {
    return terminal;
  }

  public static RunStatus fromWire(String wire) {
    for (RunStatus s : values()) {
      if (s.wire.equals(wire)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown run status " + wire);
  }
}
