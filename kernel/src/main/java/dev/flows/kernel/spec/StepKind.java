package dev.flows.kernel.spec;

import java.util.Arrays;
import java.util.Optional;

/** The closed set of step kinds. Every surface verb lowers to one of these; there is no fourth. */
public enum StepKind {
  DETERMINISTIC("deterministic"),
  LLM("llm"),
  AGENT("agent");

  private final String wire;

  StepKind(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static Optional<StepKind> fromWire(String wire) {
    return Arrays.stream(values()).filter(k -> k.wire.equals(wire)).findFirst();
  }
}
