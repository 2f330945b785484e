package dev.flows.kernel.journal;

import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.Backoff;
import dev.flows.kernel.spec.StepSpec;
import java.time.Instant;
import java.util.Optional;

/**
 * How an ended attempt leaves its step: the step transition, and the reason and disposition its
 * {@code step.completed} entry carries. Both journals decide every end of an attempt here (what a
 * success readies next is {@link AfterSuccess}); the Postgres journal's one-trip success functions
 * write the success row of this table in SQL.
 */
public record AttemptEnd(
    StepTransition transition, CompletionReason reason, Disposition disposition) {

  /**
   * Whether a step may try again after attempt {@code attempt}: attempts that ended suspended gave
   * their attempt back and do not use up an iteration.
   */
  public static boolean iterationsLeft(int attempt, int suspensions, int maxIterations) {
    return attempt - suspensions < maxIterations;
  }

  /** The end of attempt {@code attempt} as its worker reported it. */
  public static AttemptEnd reported(
      StepOutcome outcome, int attempt, int suspensions, int maxIterations) {
    return switch (outcome) {
      case StepOutcome.Succeeded s ->
          new AttemptEnd(
              StepTransition.COMPLETED_SUCCESS, CompletionReason.SUCCESS, Disposition.STEP_DONE);
      case StepOutcome.Failed f
          when f.retryable() && iterationsLeft(attempt, suspensions, maxIterations) ->
          new AttemptEnd(StepTransition.COMPLETED_RETRY, f.reason(), Disposition.RETRY);
      case StepOutcome.Failed f ->
          new AttemptEnd(
              StepTransition.COMPLETED_FAILED,
              f.retryable() ? CompletionReason.RETRIES_EXHAUSTED : f.reason(),
              Disposition.STEP_DONE);
      case StepOutcome.Parked p ->
          new AttemptEnd(StepTransition.COMPLETED_PARKED, p.reason(), Disposition.PARK);
      case StepOutcome.Suspended w ->
          new AttemptEnd(StepTransition.SUSPENDED, CompletionReason.SUSPENDED, Disposition.RETRY);
    };
  }

  /** The end of attempt {@code attempt} whose lease ran out before its worker reported. */
  public static AttemptEnd expired(int attempt, int suspensions, int maxIterations) {
    return iterationsLeft(attempt, suspensions, maxIterations)
        ? new AttemptEnd(
            StepTransition.LEASE_EXPIRED_RETRY, CompletionReason.LEASE_EXPIRED, Disposition.RETRY)
        : new AttemptEnd(
            StepTransition.LEASE_EXPIRED_EXHAUSTED,
            CompletionReason.RETRIES_EXHAUSTED,
            Disposition.STEP_DONE);
  }

  /** The end of a running attempt of a run being canceled. */
  public static AttemptEnd canceled() {
    return new AttemptEnd(
        StepTransition.CANCELED_RUNNING, CompletionReason.CANCELED, Disposition.STEP_DONE);
  }

  /**
   * What the end does to the step's run in status {@code run}: a step that fails fails a running
   * run, one that parks parks it; a parked run stays parked (the operator's resolution comes
   * first), and a success's run change is {@link AfterSuccess}'s.
   */
  public Optional<RunTransition> runTransition(RunStatus run) {
    if (run != RunStatus.RUNNING) {
      return Optional.empty();
    }
    StepStatus to = transition.to();
    if (to == StepStatus.FAILED) {
      return Optional.of(RunTransition.STEP_FAILED);
    }
    if (to == StepStatus.PARKED) {
      return Optional.of(RunTransition.STEP_PARKED);
    }
    return Optional.empty();
  }

  /** When a step whose attempt {@code attempt} ended with a retry may be claimed again. */
  public static Instant retryAt(
      Instant now, StepSpec spec, RunId runId, String stepId, int attempt) {
    return now.plusMillis(
        Backoff.delayMs(spec.retry(), attempt, Keys.idempotencyKey(runId, stepId)));
  }
}
