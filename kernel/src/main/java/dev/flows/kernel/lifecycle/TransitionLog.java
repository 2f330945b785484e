package dev.flows.kernel.lifecycle;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The transitions one journal has taken, each checked against the declared tables ({@link
 * Lifecycle}) where the journal learns of it: where its own code decides the transition, or where
 * it reads back what a database statement decided. Every journal owns one, so a journal's own test
 * run shows which declared transitions that journal exercised.
 */
public final class TransitionLog {
  private final AtomicLongArray steps = new AtomicLongArray(StepTransition.values().length);
  private final AtomicLongArray runs = new AtomicLongArray(RunTransition.values().length);

  /** Checks a step transition this journal decides and records it; returns the status to write. */
  public StepStatus step(StepTransition t, StepStatus current) {
    StepStatus to = Lifecycle.step(t, current);
    steps.incrementAndGet(t.ordinal());
    return to;
  }

  /** Checks a run transition this journal decides and records it; returns the status to write. */
  public RunStatus run(RunTransition t, Optional<RunStatus> current) {
    RunStatus to = Lifecycle.run(t, current);
    runs.incrementAndGet(t.ordinal());
    return to;
  }

  /**
   * Records {@code times} step transitions a statement made, from the statuses it answered: the
   * status the rows had and the one it wrote must be the declared pair of {@code t}.
   */
  public void stepsMade(StepTransition t, StepStatus from, StepStatus written, long times) {
    Lifecycle.step(t, from);
    if (written != t.to()) {
      throw undeclared("step", t.name(), written.wire(), t.to().wire());
    }
    steps.addAndGet(t.ordinal(), times);
  }

  /** Records a run transition a statement made, from the statuses it answered. */
  public void runMade(RunTransition t, Optional<RunStatus> from, RunStatus written) {
    Lifecycle.run(t, from);
    if (written != t.to()) {
      throw undeclared("run", t.name(), written.wire(), t.to().wire());
    }
    runs.incrementAndGet(t.ordinal());
  }

  /** How often each step transition was taken (every declared one, zero when never). */
  public Map<StepTransition, Long> stepCounts() {
    Map<StepTransition, Long> m = new EnumMap<>(StepTransition.class);
    for (StepTransition t : StepTransition.values()) {
      m.put(t, steps.get(t.ordinal()));
    }
    return m;
  }

  /** How often each run transition was taken (every declared one, zero when never). */
  public Map<RunTransition, Long> runCounts() {
    Map<RunTransition, Long> m = new EnumMap<>(RunTransition.class);
    for (RunTransition t : RunTransition.values()) {
      m.put(t, runs.get(t.ordinal()));
    }
    return m;
  }

  private static FlowsException undeclared(String what, String t, String wrote, String declared) {
    return new FlowsException(
        ErrorCode.INVALID_TRANSITION,
        what + " transition " + t + " wrote " + wrote + " but declares " + declared,
        t,
        "this is a bug in the journal; report it");
  }
}
