package dev.flows.kernel.journal;

import dev.flows.kernel.journal.MemoryState.RunRow;
import dev.flows.kernel.journal.MemoryState.StepRow;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepSpec;
import java.time.Instant;
import java.util.Optional;

/** The in-memory journal's {@link Journal#admit}: each mode under the journal's one lock. */
final class MemoryAdmission {
  private final MemoryState state;
  private final MemoryWakeups wakeups;
  private final MemoryAttempts attempts;
  private final MemoryEnds ends;
  private final HeldAdmissions held;

  MemoryAdmission(
      MemoryState state,
      MemoryWakeups wakeups,
      MemoryAttempts attempts,
      MemoryEnds ends,
      HeldAdmissions held) {
    this.state = state;
    this.wakeups = wakeups;
    this.attempts = attempts;
    this.ends = ends;
    this.held = held;
  }

  <R> R admit(StartRun r, Admit<R> mode, Instant now) {
    state.limits.requireRunInput(r.spec());
    return mode.answer(
        switch (mode) {
          case Admit.Queued q -> admit(r, now, true);
          case Admit.ClaimedHere c -> claimed(r, c, now);
          case Admit.Electing e -> electing(r, e, now);
          case Admit.WithItsEnd w -> withItsEnd(r, w, now);
          case Admit.Deferred d -> held.hold(r, d);
        });
  }

  /**
   * Admits {@code r}; {@code wakeClaimers}: whether a run it creates wakes waiting claimers (not
   * when its caller opens the attempt itself, as flows.start_claimed sends no flows_work NOTIFY).
   */
  private StartedRun admit(StartRun r, Instant now, boolean wakeClaimers) {
    String hash = RunSpecJson.hash(r.spec());
    Optional<StartedRun> answered = met(r).map(m -> m.answer(r, hash));
    if (answered.isPresent()) {
      return answered.get();
    }
    RunRow run = new RunRow();
    run.id = r.runId().orElseGet(RunRef::random);
    run.status = state.transitions.run(RunTransition.SPAWNED, Optional.empty());
    run.name = r.spec().name();
    run.parent = r.parentRunId();
    run.rerunOf = r.rerunOf();
    // A child is in its parent's queue, so a flow's whole tree is served by the root's queue.
    run.queue = r.parentRunId().map(state.runs::get).map(p -> p.queue).orElse(r.queue());
    run.admissionKey = r.admissionKey();
    run.specJson = RunSpecJson.write(r.spec());
    run.specHash = hash;
    run.createdAt = now;
    for (StepSpec s : r.spec().steps()) {
      run.steps.put(s.id(), state.newStep(s, now));
    }
    state.runs.put(run.id, run);
    state.byAdmissionKey.put(run.admissionKey, run.id);
    state.append(
        now,
        new JournalEntry.RunSpawned(
            run.id,
            run.specJson,
            hash,
            r.parentRunId(),
            r.admissionKey(),
            r.createdBy(),
            r.rerunOf()));
    if (wakeClaimers) {
      wakeups.wake();
    }
    return new StartedRun(run.id, true, run.status);
  }

  /** The run under {@code r}'s run id, else under its admission key: the run it meets. */
  private Optional<AdmittedRun> met(StartRun r) {
    return r.runId()
        .map(state.runs::get)
        .or(
            () ->
                Optional.ofNullable(state.byAdmissionKey.get(r.admissionKey()))
                    .map(state.runs::get))
        .map(run -> new AdmittedRun(run.id, run.admissionKey, run.specHash, run.status));
  }

  private ClaimedStart claimed(StartRun r, Admit.ClaimedHere mode, Instant now) {
    StepSpec only = ClaimedStart.onlyStep(r);
    StartedRun started = admit(r, now, false);
    if (!started.created()) {
      return new ClaimedStart(started, Optional.empty());
    }
    RunRow run = state.runs.get(started.runId());
    StepRow step = run.steps.get(only.id());
    return new ClaimedStart(
        started, Optional.of(attempts.open(run, step, mode.worker(), mode.lease(), now)));
  }

  private ClaimedEffect electing(StartRun r, Admit.Electing mode, Instant now) {
    StepSpec only = ClaimedEffect.inlineStep(r, mode.surfacePath());
    Optional<AdmittedRun> met = met(r);
    if (met.isPresent()) {
      met.get().answer(r, RunSpecJson.hash(r.spec()), mode);
    }
    StartedRun started = admit(r, now, false);
    RunRow run = state.runs.get(started.runId());
    StepRow step = run.steps.get(only.id());
    ClaimedAttempt attempt = attempts.open(run, step, mode.worker(), mode.lease(), now);
    EffectElection election = attempts.recordEffect(attempt.lease(), mode.surfacePath(), now);
    return new ClaimedEffect(attempt, election);
  }

  /** Claimed, then the attempt's memos and its end, as complete journals them. */
  private Optional<CompletionAck> withItsEnd(StartRun r, Admit.WithItsEnd mode, Instant now) {
    Optional<ClaimedAttempt> attempt = claimed(r, mode.claimed(), now).attempt();
    if (attempt.isEmpty()) {
      return Optional.empty();
    }
    LeaseToken lease = attempt.get().lease();
    for (MemoEffect m : mode.outcome().memos()) {
      attempts.recordConfirmedEffect(lease, m.surfacePath(), m.output(), now);
    }
    return Optional.of(ends.complete(lease, mode.outcome(), now));
  }
}
