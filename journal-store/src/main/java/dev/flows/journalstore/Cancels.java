package dev.flows.journalstore;

import dev.flows.journalstore.JournalRows.RunRow;
import dev.flows.journalstore.JournalRows.StepRow;
import dev.flows.kernel.journal.AttemptEnd;
import dev.flows.kernel.journal.CancelOutcome;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunCompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * A cancel, in one transaction: a run that exists ends canceled with its open children and its
 * steps; a run id not admitted yet is tombstoned, so a later start with that id is refused.
 */
final class Cancels {
  private final JournalDb db;

  Cancels(JournalDb db) {
    this.db = db;
  }

  CancelOutcome cancelRun(RunRef runId, String reason) {
    return db.tx(
        h -> {
          Instant now = db.now(h);
          for (int pass = 0; ; pass++) {
            Optional<RunRow> found = VerbStatements.lockRun(h, runId);
            if (found.isPresent()) {
              return cancelExisting(h, found.get(), reason, now);
            }
            if (tombstone(h, runId, now)) {
              db.transitions().run(RunTransition.TOMBSTONED, Optional.empty());
              VerbStatements.append(h, now, new JournalEntry.RunCancelRequested(runId, reason));
              VerbStatements.notifyWork(h, runId);
              return new CancelOutcome(runId, RunStatus.CANCELED, true, false);
            }
            if (pass > 0) {
              throw new IllegalStateException("tombstone insert conflicted twice for " + runId);
            }
          }
        });
  }

  private static boolean tombstone(Handle h, RunRef runId, Instant now) {
    RunStatus status = RunTransition.TOMBSTONED.to();
    return h.createUpdate(Sql.text("run_insert_tombstone"))
            .bind("runId", runId.value())
            .bind("status", status.wire())
            .bind("now", now.toString())
            .execute()
        == 1;
  }

  /** Cancels run {@code runId} inside transaction {@code h}, when it exists. */
  void cancelIn(Handle h, RunRef runId, String reason, Instant now) {
    VerbStatements.lockRun(h, runId).ifPresent(run -> cancelExisting(h, run, reason, now));
  }

  private CancelOutcome cancelExisting(Handle h, RunRow run, String reason, Instant now) {
    Optional<RunTransition> runCancel = Lifecycle.cancelFor(run.status());
    if (runCancel.isEmpty()) {
      return new CancelOutcome(run.runId(), run.status(), false, true);
    }
    VerbStatements.append(h, now, new JournalEntry.RunCancelRequested(run.runId(), reason));
    // Its open children first (a suspended body is not there to cancel the call it waits on), and
    // before its own steps: a child's completion locks the child, then (the trigger
    // runs_wake_suspended_parent) this run's suspended steps, so taking the children first cannot
    // deadlock with it.
    for (String childId :
        h.createQuery(Sql.text("runs_children"))
            .bind("parentRunId", run.runId().value())
            .mapTo(String.class)
            .list()) {
      VerbStatements.lockRun(h, new RunRef(childId))
          .ifPresent(
              child ->
                  cancelExisting(h, child, "its parent run " + run.runId() + " was canceled", now));
    }
    for (StepRow s : VerbStatements.lockSteps(h, run.runId())) {
      Optional<StepTransition> t = Lifecycle.cancelFor(s.status());
      if (t.isEmpty()) {
        continue;
      }
      if (s.status() == StepStatus.RUNNING) {
        VerbStatements.endUnreported(
            db.transitions(), h, s, AttemptEnd.canceled(), Optional.empty(), now);
      } else {
        VerbStatements.setStatus(db.transitions(), h, s, t.get(), Optional.empty(), now);
      }
    }
    RunStatus after =
        RunEnds.finish(
            db.transitions(),
            h,
            run,
            runCancel.get(),
            RunCompletionReason.CANCELED,
            Optional.empty(),
            now);
    VerbStatements.notifyWork(h, run.runId());
    return new CancelOutcome(run.runId(), after, false, false);
  }
}
