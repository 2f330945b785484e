package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.mcp.McpCallFailures;
import dev.flows.kernel.spec.Backoff;
import dev.flows.kernel.spec.StepSpec;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How an ended attempt leaves its step: the step transition, the reason and disposition its {@code
 * step.completed} entry carries, and whether it used up one of the step's {@code maxIterations}.
 * Both journals decide every end of an attempt here (what a success readies next is {@link
 * AfterSuccess}); the Postgres journal's one-trip success functions write the success row of this
 * table in SQL.
 *
 * <p>An attempt that uses no iteration gave its attempt back: it ended suspended, or its lease ran
 * out while the step's call waited on a live task (see {@link #expired}). Each journal counts such
 * attempts in the step's {@code suspensions}, so the retry budget is {@code attempts -
 * suspensions}.
 */
public record AttemptEnd(
    StepTransition transition,
    CompletionReason reason,
    Disposition disposition,
    boolean usesIteration,
    Optional<JsonNode> tail) {

  /**
   * {@code tail}: the trajectory tail the end journals in place of the attempt's own, when the end
   * is the journal's decision about an effect of unknown outcome ({@link UnknownOutcomeEnd}).
   */
  public AttemptEnd {
    java.util.Objects.requireNonNull(tail, "tail");
  }

  /** An end that journals the attempt's own tail. */
  public AttemptEnd(
      StepTransition transition,
      CompletionReason reason,
      Disposition disposition,
      boolean usesIteration) {
    this(transition, reason, disposition, usesIteration, Optional.empty());
  }

  /** An end that uses up an iteration (every end but a given-back one). */
  public AttemptEnd(StepTransition transition, CompletionReason reason, Disposition disposition) {
    this(transition, reason, disposition, true);
  }

  /**
   * Whether a step may try again after attempt {@code attempt}: attempts given back (suspended, or
   * expired while a live task was awaited) do not use up an iteration.
   */
  public static boolean iterationsLeft(int attempt, int suspensions, int maxIterations) {
    return attempt - suspensions < maxIterations;
  }

  /**
   * The end of attempt {@code attempt} of step {@code spec} of run {@code run} as its worker
   * reported it. A retryable failure with no iteration left, or a failure that is not retried whose
   * diagnostic says the call may have been performed, on a step whose effect was recorded and never
   * confirmed ({@code unconfirmed}, asked only then) ends as {@link UnknownOutcomeEnd} decides:
   * parked, not failed, since the effect may have happened.
   */
  public static AttemptEnd reported(
      StepOutcome outcome,
      int attempt,
      int suspensions,
      RunRef run,
      StepSpec spec,
      Supplier<Optional<JournalEntry.EffectRef>> unconfirmed) {
    AttemptEnd end = reported(outcome, attempt, suspensions, spec.maxIterations());
    if (outcome instanceof StepOutcome.Failed f
        && (end.reason() == CompletionReason.RETRIES_EXHAUSTED
            || (end.transition() == StepTransition.COMPLETED_FAILED && mayHaveBeenPerformed(f)))) {
      return UnknownOutcomeEnd.of(
              run,
              spec,
              unconfirmed,
              StepTransition.COMPLETED_FAILED,
              f.reason(),
              Optional.ofNullable(f.trajectoryTail()))
          .orElse(end);
    }
    return end;
  }

  /**
   * Whether a failure that is not retried left its call's outcome unknown: its diagnostic says the
   * request may have reached the server ({@link McpCallFailures}).
   */
  private static boolean mayHaveBeenPerformed(StepOutcome.Failed f) {
    return f.trajectoryTail() != null
        && McpCallFailures.mayHaveBeenPerformed(f.trajectoryTail().path("diagnostic").asText(""));
  }

  /**
   * The end of attempt {@code attempt} as its worker reported it, on a step with no effect of
   * unknown outcome.
   */
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
          new AttemptEnd(
              StepTransition.SUSPENDED, CompletionReason.SUSPENDED, Disposition.RETRY, false);
    };
  }

  /**
   * The end of attempt {@code attempt} whose lease ran out before its worker reported, at {@code
   * now}. While the step's journaled task ({@code task}) is awaited (still running on the server,
   * no cancel sent, its deadline not reached: {@link DurableTasks.StepTask#awaitedAt}) the attempt
   * was polling a call the server still has: it is given back, uses no iteration, and the step
   * polls again; a worker dying during a long task is no reason to fail the call. Past the task's
   * deadline, or for any other step, an expiry uses up an iteration, so a step whose workers keep
   * dying still ends: failed, or parked by {@link UnknownOutcomeEnd} when an effect of the step was
   * recorded and never confirmed ({@code unconfirmed}, asked only then).
   */
  public static AttemptEnd expired(
      int attempt,
      int suspensions,
      RunRef run,
      StepSpec spec,
      Optional<DurableTasks.StepTask> task,
      Supplier<Optional<JournalEntry.EffectRef>> unconfirmed,
      Instant now) {
    AttemptEnd end = expired(attempt, suspensions, spec, task, now);
    if (end.transition() == StepTransition.LEASE_EXPIRED_EXHAUSTED) {
      return UnknownOutcomeEnd.of(
              run,
              spec,
              unconfirmed,
              StepTransition.LEASE_EXPIRED_EXHAUSTED,
              CompletionReason.LEASE_EXPIRED,
              Optional.empty())
          .orElse(end);
    }
    return end;
  }

  /**
   * {@link #expired} on a step with no effect of unknown outcome (its last attempt's lease ran out
   * with no iteration left: failed {@code retries_exhausted}).
   */
  public static AttemptEnd expired(
      int attempt,
      int suspensions,
      StepSpec spec,
      Optional<DurableTasks.StepTask> task,
      Instant now) {
    if (task.filter(t -> t.awaitedAt(now, spec.timeoutMs())).isPresent()) {
      return new AttemptEnd(
          StepTransition.LEASE_EXPIRED_RETRY,
          CompletionReason.LEASE_EXPIRED,
          Disposition.RETRY,
          false);
    }
    return iterationsLeft(attempt, suspensions, spec.maxIterations())
        ? new AttemptEnd(
            StepTransition.LEASE_EXPIRED_RETRY, CompletionReason.LEASE_EXPIRED, Disposition.RETRY)
        : new AttemptEnd(
            StepTransition.LEASE_EXPIRED_EXHAUSTED,
            CompletionReason.RETRIES_EXHAUSTED,
            Disposition.STEP_DONE);
  }

  /**
   * When the step of this expired attempt may be claimed again: at once when the attempt was given
   * back (the task is polled again, as after a suspension), after the durable backoff for a retry,
   * never when the step is done.
   */
  public Optional<Instant> afterExpiry(
      Instant now, StepSpec spec, RunRef runId, String stepId, int attempt) {
    if (!usesIteration) {
      return Optional.of(now);
    }
    return disposition == Disposition.RETRY
        ? Optional.of(retryAt(now, spec, runId, stepId, attempt))
        : Optional.empty();
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
      Instant now, StepSpec spec, RunRef runId, String stepId, int attempt) {
    return now.plusMillis(
        Backoff.delayMs(spec.retry(), attempt, Keys.idempotencyKey(runId, stepId)));
  }
}
