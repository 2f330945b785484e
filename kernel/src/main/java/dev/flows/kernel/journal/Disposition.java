package dev.flows.kernel.journal;

/** What happens to a step after an attempt ends. */
public enum Disposition {
  STEP_DONE("step_done"),
  RETRY("retry"),
  PARK("park");

  private final String wire;

  Disposition(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static Disposition fromWire(String wire) {
    for (Disposition d : values()) {
      if (d.wire.equals(wire)) {
        return d;
      }
    }
    throw new IllegalArgumentException("unknown disposition " + wire);
  }
}
