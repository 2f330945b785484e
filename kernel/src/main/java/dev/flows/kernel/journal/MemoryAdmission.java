package dev.flows.kernel.journal;

import dev.flows.kernel.RunAdmissionConflictException;
import dev.flows.kernel.RunTerminalException;
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
    RunId existingByKey = state.byAdmissionKey.get(r.admissionKey());
    if (r.runId().isPresent()) {
      RunRow byId = state.runs.get(r.runId().get());
      if (byId != null && !byId.admissionKey.equals(r.admissionKey())) {
        if (byId.status.terminal()) {
          throw new RunTerminalException(
              "run " + byId.id + " is already " + byId.status.wire(), byId.id.value());
        }
        throw new RunAdmissionConflictException(r.admissionKey(), byId.id.value());
      }
    }
    if (existingByKey != null) {
      RunRow existing = state.runs.get(existingByKey);
      if (!existing.specHash.equals(hash)
          || (r.runId().isPresent() && !r.runId().get().equals(existing.id))) {
        throw new RunAdmissionConflictException(r.admissionKey(), existing.id.value());
      }
      return new StartedRun(existing.id, false, existing.status);
    }
    RunRow run = new RunRow();
    run.id = r.runId().orElseGet(RunId::random);
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
    if (r.runId().isPresent()) {
      RunRow byId = state.runs.get(r.runId().get());
      if (byId != null) {
        if (!byId.admissionKey.equals(r.admissionKey()) && byId.status.terminal()) {
          throw new RunTerminalException(
              "run " + byId.id + " is already " + byId.status.wire(), byId.id.value());
        }
        throw new RunAdmissionConflictException(
            r.admissionKey(), byId.id.value(), "the run id was already admitted");
      }
    }
    RunId existing = state.byAdmissionKey.get(r.admissionKey());
    if (existing != null) {
      throw new RunAdmissionConflictException(
          r.admissionKey(), existing.value(), "the admission key was already used");
    }
    StartedRun started = admit(r, now, false);
    RunRow run = state.runs.get(started.runId());
    StepRow step = run.steps.get(only.id());
    ClaimedAttempt attempt = attempts.open(run, step, worker, lease, now);
    EffectElection election = attempts.recordEffect(attempt.lease(), surfacePath, now);
    return new ClaimedEffect(attempt, election);
  }
}
