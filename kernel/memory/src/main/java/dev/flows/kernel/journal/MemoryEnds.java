package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.MemoryState.Election;
import dev.flows.kernel.journal.MemoryState.RunRow;
import dev.flows.kernel.journal.MemoryState.StepRow;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The in-memory journal's ends of attempts and runs: completion as the worker reports it, lease
 * expiry, cancel, and what each end does to the run. The decisions are the kernel's ({@link
 * AttemptEnd}, {@link AfterSuccess}, {@link Lifecycle}); this class applies them to the rows.
 * Called under the journal's lock.
 */
final class MemoryEnds {
  private final MemoryState state;
  private final MemoryWakeups wakeups;
  private final MemoryAttempts attempts;
  private final MemorySignals signals;

  MemoryEnds(
      MemoryState state, MemoryWakeups wakeups, MemoryAttempts attempts, MemorySignals signals) {
    this.state = state;
    this.wakeups = wakeups;
    this.attempts = attempts;
    this.signals = signals;
  }

  CompletionAck complete(LeaseToken lease, StepOutcome outcome, Instant now) {
    StepRow step = state.live(lease, now);
    RunRow run = state.runs.get(lease.runId());
    List<JournalEntry.EffectRef> effects = new ArrayList<>();
    for (Map.Entry<String, Election> e : step.elections.entrySet()) {
      if (e.getValue().attempt == lease.attempt()) {
        if (e.getValue().confirmed) {
          effects.add(new JournalEntry.EffectRef(e.getKey(), e.getValue().key));
        } else if (outcome instanceof StepOutcome.Succeeded) {
          throw unconfirmed(lease, e.getKey());
        }
      }
    }
    List<RunRow> awaited = awaitedChildren(lease, outcome);
    AttemptEnd end =
        AttemptEnd.reported(
            outcome,
            lease.attempt(),
            step.suspensions,
            lease.runId(),
            step.spec,
            () -> unconfirmed(step));
    Optional<Instant> next = Optional.empty();
    Optional<JsonNode> output = Optional.empty();
    Optional<JsonNode> tail = Optional.empty();
    switch (outcome) {
      case StepOutcome.Succeeded s -> {
        step.output = s.output().deepCopy();
        output = Optional.of(s.output());
      }
      case StepOutcome.Failed f -> {
        tail = end.tail().or(() -> Optional.ofNullable(f.trajectoryTail()));
        if (end.disposition() == Disposition.RETRY) {
          next =
              Optional.of(
                  AttemptEnd.retryAt(
                      now, step.spec, lease.runId(), lease.stepId(), lease.attempt()));
        }
      }
      case StepOutcome.Parked p -> tail = Optional.ofNullable(p.trajectoryTail());
      case StepOutcome.Suspended w -> {
        awaited.forEach(a -> a.wakesParent = true);
        // Settled already (a child ended, or a signal came, while the body decided to wait):
        // ready at once.
        boolean settled =
            awaited.stream().anyMatch(a -> a.status != RunStatus.RUNNING)
                || signals.pending(lease.runId(), w.signals()).isPresent();
        next = Optional.of(settled ? now : now.plus(w.recheckAfter()));
      }
    }
    endAttempt(run, step, lease.attempt(), end, next, output, effects, tail, now);
    if (outcome instanceof StepOutcome.Succeeded) {
      afterSuccess(run, now);
    }
    endsRun(run, end, lease.stepId(), now);
    if (end.disposition() == Disposition.RETRY) {
      wakeups.wake();
    }
    return new CompletionAck(end.reason(), end.disposition(), next, run.status);
  }

  /** Every check runs before anything is written, at one instant, so a refusal writes nothing. */
  CompletionAck confirmAndComplete(
      LeaseToken lease,
      String surfacePath,
      Optional<JsonNode> output,
      StepOutcome outcome,
      Instant now) {
    StepRow step = state.live(lease, now);
    MemoryAttempts.election(step, lease, surfacePath);
    if (outcome instanceof StepOutcome.Succeeded) {
      for (Map.Entry<String, Election> other : step.elections.entrySet()) {
        if (!other.getKey().equals(surfacePath)
            && other.getValue().attempt == lease.attempt()
            && !other.getValue().confirmed) {
          throw unconfirmed(lease, other.getKey());
        }
      }
    }
    awaitedChildren(lease, outcome);
    attempts.confirmEffect(lease, surfacePath, output, now);
    return complete(lease, outcome, now);
  }

  /**
   * The child runs a suspended outcome awaits (none for any other outcome), refused before anything
   * is written when one is not a child of the attempt's run.
   */
  private List<RunRow> awaitedChildren(LeaseToken lease, StepOutcome outcome) {
    if (!(outcome instanceof StepOutcome.Suspended w)) {
      return List.of();
    }
    List<RunRow> rows = new ArrayList<>();
    for (RunRef id : w.awaitingInOrder()) {
      RunRow awaited = state.runs.get(id);
      if (awaited == null || !awaited.parent.equals(Optional.of(lease.runId()))) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "run " + id + " is not a child of " + lease.runId(),
            lease.place(),
            "suspend only on a child run the body started");
      }
      rows.add(awaited);
    }
    return rows;
  }

  /** The step's first election recorded and never confirmed, by any of its attempts. */
  private static Optional<JournalEntry.EffectRef> unconfirmed(StepRow step) {
    return step.elections.entrySet().stream()
        .filter(e -> !e.getValue().confirmed)
        .map(e -> new JournalEntry.EffectRef(e.getKey(), e.getValue().key))
        .findFirst();
  }

  private static FlowsException unconfirmed(LeaseToken lease, String surfacePath) {
    return new FlowsException(
        ErrorCode.EFFECT_UNCONFIRMED,
        "effect " + surfacePath + " was recorded but never confirmed",
        lease.place(),
        "confirm the effect, or complete the attempt as failed");
  }

  List<ExpiredAttempt> expireLeases(Instant now) {
    record Due(RunRow run, StepRow step) {}
    List<Due> due = new ArrayList<>();
    for (RunRow run : state.runs.values()) {
      if (run.status.terminal()) {
        continue;
      }
      for (StepRow s : run.steps.values()) {
        if (s.status == StepStatus.RUNNING && !Lifecycle.leaseLive(s.leaseDeadline, now)) {
          due.add(new Due(run, s));
        }
      }
    }
    // The most overdue first, ties in the order the steps were created (as Postgres orders them).
    due.sort(
        Comparator.comparing((Due d) -> d.step().leaseDeadline)
            .thenComparingLong(d -> d.step().order));
    List<ExpiredAttempt> expired = new ArrayList<>();
    for (Due d : due) {
      RunRow run = d.run();
      StepRow s = d.step();
      if (run.status.terminal()) {
        // An earlier expiry of this pass ended the run: its other attempts are left as they are.
        continue;
      }
      LeaseToken token = new LeaseToken(run.id, s.spec.id(), s.attempts, s.leaseId);
      Optional<DurableTasks.StepTask> task = DurableTasks.of(state.entries(run.id), s.spec.id());
      AttemptEnd end =
          AttemptEnd.expired(
              s.attempts, s.suspensions, run.id, s.spec, task, () -> unconfirmed(s), now);
      Optional<Instant> next = end.afterExpiry(now, s.spec, run.id, s.spec.id(), s.attempts);
      // An expiry names no effects: the dead attempt never reported.
      endAttempt(run, s, s.attempts, end, next, Optional.empty(), List.of(), end.tail(), now);
      expired.add(new ExpiredAttempt(token, end.disposition()));
      if (end.disposition() == Disposition.RETRY) {
        wakeups.wake();
      } else {
        endsRun(run, end, s.spec.id(), now);
      }
    }
    return expired;
  }

  CancelOutcome cancelRun(RunRef runId, String reason, Instant now) {
    RunRow run = state.runs.get(runId);
    if (run == null) {
      run = new RunRow();
      run.id = runId;
      run.status = state.transitions.run(RunTransition.TOMBSTONED, Optional.empty());
      run.admissionKey = "tombstone:" + runId.value();
      run.createdAt = now;
      run.completedAt = now;
      run.completionReason = RunCompletionReason.CANCELED;
      state.runs.put(runId, run);
      state.byAdmissionKey.put(run.admissionKey, runId);
      state.append(now, new JournalEntry.RunCancelRequested(runId, reason));
      wakeups.wake();
      return new CancelOutcome(runId, run.status, true, false);
    }
    if (run.status.terminal()) {
      return new CancelOutcome(runId, run.status, false, true);
    }
    state.append(now, new JournalEntry.RunCancelRequested(runId, reason));
    // Its open children too: a suspended body is not there to cancel the call it waits on.
    for (RunRow child : List.copyOf(state.runs.values())) {
      if (child.parent.equals(Optional.of(runId)) && !child.status.terminal()) {
        cancelRun(child.id, "its parent run " + runId + " was canceled", now);
      }
    }
    for (StepRow s : run.steps.values()) {
      Optional<StepTransition> t = Lifecycle.cancelFor(s.status);
      if (t.isEmpty()) {
        continue;
      }
      if (s.status == StepStatus.RUNNING) {
        endAttempt(
            run,
            s,
            s.attempts,
            AttemptEnd.canceled(),
            Optional.empty(),
            Optional.empty(),
            List.of(),
            Optional.empty(),
            now);
      } else {
        s.status = state.transitions.step(t.get(), s.status);
      }
    }
    endRun(
        run,
        Lifecycle.cancelFor(run.status).orElseThrow(),
        RunCompletionReason.CANCELED,
        null,
        now);
    return new CancelOutcome(runId, run.status, false, false);
  }

  /** The step's attempt ends as {@code end} decided, journaled with what it reported. */
  private void endAttempt(
      RunRow run,
      StepRow step,
      int attempt,
      AttemptEnd end,
      Optional<Instant> next,
      Optional<JsonNode> output,
      List<JournalEntry.EffectRef> effects,
      Optional<JsonNode> tail,
      Instant now) {
    step.clearLease();
    step.status = state.transitions.step(end.transition(), step.status);
    if (!end.usesIteration()) {
      step.suspensions++;
    }
    step.lastReason = end.reason();
    next.ifPresent(t -> step.notBefore = t);
    state.append(
        now,
        new JournalEntry.StepCompleted(
            run.id,
            step.spec.id(),
            attempt,
            end.reason(),
            end.disposition(),
            output,
            effects,
            tail,
            next));
  }

  /** A failed step fails its running run; a parked one parks it. */
  private void endsRun(RunRow run, AttemptEnd end, String stepId, Instant now) {
    Optional<RunTransition> t = end.runTransition(run.status);
    if (t.isEmpty()) {
      return;
    }
    if (t.get() == RunTransition.STEP_PARKED) {
      run.status = state.transitions.run(t.get(), Optional.of(run.status));
      wakeParent(run, now);
      return;
    }
    endRun(run, t.get(), RunCompletionReason.STEP_FAILED, stepId, now);
  }

  /** Readies what a success readies, and ends the run when it was its last step. */
  void afterSuccess(RunRow run, Instant now) {
    List<AfterSuccess.Step> steps = new ArrayList<>();
    run.steps
        .values()
        .forEach(s -> steps.add(new AfterSuccess.Step(s.spec.id(), s.status, s.spec.dependsOn())));
    AfterSuccess after = AfterSuccess.of(run.status, steps);
    for (String id : after.readied()) {
      StepRow s = run.steps.get(id);
      s.status = state.transitions.step(StepTransition.DEPENDENCIES_MET, s.status);
      s.notBefore = now;
    }
    if (after.runSucceeds()) {
      endRun(run, RunTransition.ALL_STEPS_SUCCEEDED, RunCompletionReason.SUCCESS, null, now);
    } else if (!after.readied().isEmpty()) {
      wakeups.wake();
    }
  }

  private void endRun(
      RunRow run, RunTransition t, RunCompletionReason reason, String failedStepId, Instant now) {
    run.status = state.transitions.run(t, Optional.of(run.status));
    wakeParent(run, now);
    run.completedAt = now;
    run.completionReason = reason;
    state.live.forget(run.id);
    // No claimer wakes for a run's end (flows.succeed_attempt notifies its watchers only): a
    // suspended parent it readies wakes them (wakeParent).
    state.append(
        now, new JournalEntry.RunCompleted(run.id, reason, Optional.ofNullable(failedStepId)));
  }

  /**
   * A run that a suspended parent attempt awaits has left {@code running}: the parent's suspended
   * steps are ready now.
   */
  private void wakeParent(RunRow run, Instant now) {
    if (!run.wakesParent || run.parent.isEmpty()) {
      return;
    }
    RunRow parent = state.runs.get(run.parent.get());
    if (parent == null) {
      return;
    }
    for (StepRow s : parent.steps.values()) {
      if (s.status == StepStatus.READY
          && s.lastReason == CompletionReason.SUSPENDED
          && s.notBefore.isAfter(now)) {
        s.notBefore = now;
        wakeups.wake();
      }
    }
  }
}
