package dev.flows.journalstore;

import dev.flows.journalstore.JournalRows.RunRow;
import dev.flows.kernel.journal.AttemptEnd;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunCompletionReason;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.lifecycle.TransitionLog;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** What an end of an attempt does to its run, in the transaction that ended the attempt. */
final class RunEnds {
  private RunEnds() {}

  /**
   * The run's consequence of {@code end} ({@link AttemptEnd#runTransition}): a failed step fails a
   * running run, a parked one parks it. Answers the run's status after.
   */
  static RunStatus afterAttempt(
      TransitionLog log, Handle h, RunRow run, AttemptEnd end, String stepId, Instant now) {
    Optional<RunTransition> t = end.runTransition(run.status());
    if (t.isEmpty()) {
      return run.status();
    }
    if (t.get() == RunTransition.STEP_PARKED) {
      RunStatus to = VerbStatements.setRunStatus(log, h, run, t.get());
      // Whoever awaits this run (a parent body) must learn it parked.
      VerbStatements.notifyWork(h, run.runId());
      return to;
    }
    return finish(log, h, run, t.get(), RunCompletionReason.STEP_FAILED, Optional.of(stepId), now);
  }

  /** Ends the run ({@code t} to a terminal status), journals it and notifies. */
  static RunStatus finish(
      TransitionLog log,
      Handle h,
      RunRow run,
      RunTransition t,
      RunCompletionReason reason,
      Optional<String> failedStepId,
      Instant now) {
    RunStatus to = log.run(t, Optional.of(run.status()));
    VerbStatements.expectOne(
        h.createUpdate(Sql.text("run_finish"))
            .bind("runId", run.runId().value())
            .bind("from", run.status().wire())
            .bind("to", to.wire())
            .bind("reason", reason.wire())
            .bind("now", now.toString())
            .execute(),
        "finish run " + run.runId());
    VerbStatements.append(h, now, new JournalEntry.RunCompleted(run.runId(), reason, failedStepId));
    VerbStatements.notifyWork(h, run.runId());
    return to;
  }

  /**
   * What a success readies, decided by {@code flows.after_success} (the kernel's {@code
   * AfterSuccess} in SQL), journaled and notified. Answers the run's status after.
   */
  static RunStatus afterSuccess(TransitionLog log, Handle h, RunRow run, Instant now) {
    record After(int unblocked, boolean runDone) {}
    After after =
        h.createQuery(Sql.text("after_success"))
            .bind("runId", run.runId().value())
            .bind("runStatus", run.status().wire())
            .bind("now", now.toString())
            .map((rs, ctx) -> new After(rs.getInt("unblocked"), rs.getBoolean("run_done")))
            .one();
    if (after.unblocked() > 0) {
      // The transitions the function took: it readies waiting steps only.
      log.stepsMade(
          StepTransition.DEPENDENCIES_MET, StepStatus.WAITING, StepStatus.READY, after.unblocked());
      VerbStatements.notifyWork(h, run.runId());
    }
    if (!after.runDone()) {
      return run.status();
    }
    RunStatus to = log.run(RunTransition.ALL_STEPS_SUCCEEDED, Optional.of(run.status()));
    VerbStatements.append(
        h,
        now,
        new JournalEntry.RunCompleted(run.runId(), RunCompletionReason.SUCCESS, Optional.empty()));
    VerbStatements.notifyWork(h, run.runId());
    return to;
  }
}
