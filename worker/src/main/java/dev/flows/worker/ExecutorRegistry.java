package dev.flows.worker;

import dev.flows.kernel.spec.StepKind;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The executors a worker has, one per step kind; the worker claims only these kinds. */
public final class ExecutorRegistry {
  private final Map<StepKind, StepExecutor> byKind;

  public ExecutorRegistry(List<StepExecutor> executors) {
    Map<StepKind, StepExecutor> m = new EnumMap<>(StepKind.class);
    for (StepExecutor e : executors) {
      if (m.putIfAbsent(e.kind(), e) != null) {
        throw new IllegalArgumentException("two executors for step kind " + e.kind().wire());
      }
    }
    if (m.isEmpty()) {
      throw new IllegalArgumentException("a worker needs at least one executor");
    }
    byKind = Map.copyOf(m);
  }

  public static ExecutorRegistry of(StepExecutor... executors) {
    return new ExecutorRegistry(List.of(executors));
  }

  public Set<StepKind> kinds() {
    return byKind.keySet();
  }

  /**
   * The step routes these executors can run ({@link dev.flows.kernel.spec.Routes}): the plain
   * kinds, and for agent steps each instruction type the {@link AgentExecutor} dispatches. Empty
   * when an agent executor cannot say which types it serves (then any agent step is claimed).
   */
  public Optional<Set<String>> routes() {
    Set<String> out = new java.util.HashSet<>();
    for (Map.Entry<StepKind, StepExecutor> e : byKind.entrySet()) {
      switch (e.getKey()) {
        case DETERMINISTIC, LLM -> out.add(e.getKey().wire());
        case AGENT -> {
          if (e.getValue() instanceof AgentExecutor a) {
            out.addAll(a.instructionTypes());
          } else {
            return Optional.empty();
          }
        }
      }
    }
    return Optional.of(out);
  }

  public Optional<StepExecutor> executorFor(StepKind kind) {
    return Optional.ofNullable(byKind.get(kind));
  }
}
