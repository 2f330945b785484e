package dev.flows.kernel.spec;

import java.util.List;
import java.util.Optional;

/**
 * A parsed, validated run spec. Only {@link RunSpecParser} produces one from JSON; its canonical
 * JSON form and hash are what the journal stores.
 */
public record RunSpec(String version, String name, List<StepSpec> steps) {
  public static final String VERSION = "0.1.0";

  public RunSpec {
    steps = List.copyOf(steps);
  }

  public Optional<StepSpec> step(String id) {
    return steps.stream().filter(s -> s.id().equals(id)).findFirst();
  }
}
