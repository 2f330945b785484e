package dev.flows.kernel.spec;

import java.util.Arrays;
import java.util.Optional;

/** What an agent step's next attempt may assume about the work of a dead attempt. */
public enum RecoveryMode {
  RESET("reset"),
  INSPECT("inspect"),
  MANUAL("manual");

  private final String wire;

  RecoveryMode(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static Optional<RecoveryMode> fromWire(String wire) {
    return Arrays.stream(values()).filter(k -> k.wire.equals(wire)).findFirst();
  }
}
