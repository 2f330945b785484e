package dev.flows.kernel.journal;

import dev.flows.kernel.journal.MemoryState.RunRow;
import dev.flows.kernel.journal.MemoryState.StepRow;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** The in-memory journal's admissions: a run started, or started with its one attempt open. */
final class MemoryAdmission {
  private final MemoryState state;
  private final MemoryWakeups wakeups;
  private final MemoryAttempts attempts;

  MemoryAdmission(MemoryState state, MemoryWakeups wakeups, MemoryAttempts attempts) {
    this.state = state;
    this.wakeups = wakeups;
    this.attempts = attempts;
  }

  StartedRun startRun(StartRun r, Instant now) {
    return admit(r, now, true);
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

  ClaimedStart startRunClaimed(StartRun r, WorkerId worker, Duration lease, Instant now) {
    StepSpec only = ClaimedStart.onlyStep(r);
    StartedRun started = admit(r, now, false);
    if (!started.created()) {
      return new ClaimedStart(started, Optional.empty());
    }
    RunRow run = state.runs.get(started.runId());
    return new ClaimedStart(
        started, Optional.of(attempts.open(run, run.steps.get(only.id()), worker, lease, now)));
  }

  ClaimedEffect startClaimed(
      StartRun r, WorkerId worker, Duration lease, String surfacePath, Instant now) {
    StepSpec only = ClaimedEffect.inlineStep(r, surfacePath);
    Optional<AdmittedRun> met = met(r);
    if (met.isPresent()) {
      throw AdmittedRun.notNew(r, met.get().answer(r, RunSpecJson.hash(r.spec())).runId());
    }
    StartedRun started = admit(r, now, false);
    RunRow run = state.runs.get(started.runId());
    StepRow step = run.steps.get(only.id());
    ClaimedAttempt attempt = attempts.open(run, step, worker, lease, now);
    EffectElection election = attempts.recordEffect(attempt.lease(), surfacePath, now);
    return new ClaimedEffect(attempt, election);
  }
}
