package dev.flows.kernel.lifecycle;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.spec.StepSpec;
import java.time.Instant;
import java.util.Optional;

/**
 * The run and step state machines. Journals ask here before they change a status; an undeclared
 * pair is a bug and fails loudly with {@code invalid_transition}. Time-based rules (when a step may
 * be claimed, when a lease is over) are judged against a time the caller passes in: the in-memory
 * journal's injected clock, or for Postgres its test clock when one is set, else the database
 * clock.
 */
public final class Lifecycle {
  private Lifecycle() {}

  /**
   * Checks a step transition; returns the status to write. A journal records what it takes in its
   * own {@link TransitionLog}.
   */
  public static StepStatus step(StepTransition t, StepStatus current) {
    if (current != t.from()) {
      throw new FlowsException(
          ErrorCode.INVALID_TRANSITION,
          "step transition " + t + " needs " + t.from().wire() + " but step is " + current.wire(),
          t.name(),
          "this is a bug in the journal; report it");
    }
    return t.to();
  }

  /** Checks a run transition; {@code current} is empty for a run not yet created. */
  public static RunStatus run(RunTransition t, Optional<RunStatus> current) {
    if (!current.equals(t.from())) {
      throw new FlowsException(
          ErrorCode.INVALID_TRANSITION,
          "run transition "
              + t
              + " needs "
              + t.from().map(RunStatus::wire).orElse("no run")
              + " but run is "
              + current.map(RunStatus::wire).orElse("absent"),
          t.name(),
          "this is a bug in the journal; report it");
    }
    return t.to();
  }

  /** The cancel transition that applies to a non-terminal step, if any. */
  public static Optional<StepTransition> cancelFor(StepStatus s) {
    return switch (s) {
      case WAITING -> Optional.of(StepTransition.CANCELED_WAITING);
      case READY -> Optional.of(StepTransition.CANCELED_READY);
      case RUNNING -> Optional.of(StepTransition.CANCELED_RUNNING);
      case PARKED -> Optional.of(StepTransition.CANCELED_PARKED);
      case SUCCEEDED, FAILED, CANCELED -> Optional.empty();
    };
  }

  /** The cancel transition that applies to a run, if it is not terminal yet. */
  public static Optional<RunTransition> cancelFor(RunStatus s) {
    return switch (s) {
      case RUNNING -> Optional.of(RunTransition.CANCELED_RUNNING);
      case PARKED -> Optional.of(RunTransition.CANCELED_PARKED);
      case SUCCEEDED, FAILED, CANCELED -> Optional.empty();
    };
  }

  /** The status a step is created with: ready when it depends on nothing, else waiting. */
  public static StepStatus created(StepSpec step) {
    return step.dependsOn().isEmpty() ? StepStatus.READY : StepStatus.WAITING;
  }

  /** A ready step may be claimed once its backoff has passed. */
  public static boolean claimable(StepStatus s, Instant notBefore, Instant now) {
    return s == StepStatus.READY && !now.isBefore(notBefore);
  }

  /** A lease is live strictly before its deadline; at the deadline it is over. */
  public static boolean leaseLive(Instant deadline, Instant now) {
    return now.isBefore(deadline);
  }
}
