package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.JournalRows.RunRow;
import dev.flows.journalstore.JournalRows.StepRow;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.DurableInput;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.Resolutions;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** An operator's verbs, each one transaction: resume a run, resolve a parked step. */
final class OperatorVerbs {
  private final JournalDb db;

  OperatorVerbs(JournalDb db) {
    this.db = db;
  }

  void resumeRun(RunRef runId, String by) {
    db.tx(
        h -> {
          Instant now = db.now(h);
          resume(
              h,
              VerbStatements.lockRun(h, runId).orElseThrow(() -> Refusals.runNotFound(runId)),
              by,
              now);
          return null;
        });
  }

  private void resume(Handle h, RunRow run, String by, Instant now) {
    RunRef runId = run.runId();
    RunTransition t =
        switch (run.status()) {
          case RUNNING -> null;
          case SUCCEEDED, CANCELED ->
              throw new RunTerminalException(
                  "run " + runId + " is " + run.status().wire() + " and cannot resume",
                  runId.value());
          case FAILED -> RunTransition.RESUMED;
          case PARKED -> RunTransition.UNPARKED;
        };
    if (t == null) {
      return;
    }
    RunStatus to = db.transitions().run(t, Optional.of(run.status()));
    VerbStatements.expectOne(
        h.createUpdate(Sql.text("run_resume"))
            .bind("runId", runId.value())
            .bind("from", run.status().wire())
            .bind("to", to.wire())
            .execute(),
        "resume run " + runId);
    for (StepRow s : VerbStatements.lockSteps(h, runId)) {
      switch (s.status()) {
        case FAILED ->
            VerbStatements.setStatus(
                db.transitions(), h, s, StepTransition.RESUMED, Optional.of(now), now);
        case PARKED ->
            VerbStatements.setStatus(
                db.transitions(), h, s, StepTransition.RESOLVED, Optional.of(now), now);
        case WAITING, READY, RUNNING, SUCCEEDED, CANCELED -> {}
      }
    }
    VerbStatements.append(h, now, new JournalEntry.RunResumed(runId, by));
    VerbStatements.notifyWork(h, runId);
  }

  void answerInput(RunRef runId, String stepId, InputAnswer answer, String by) {
    onParkedStep(
        runId,
        stepId,
        (h, s, now) -> {
          JsonNode park =
              DurableInput.requireParked(RunQueries.entries(h, runId), runId, stepId, s.status());
          JsonNode responses = DurableInput.responses(s.place(), park, answer, db.limits());
          VerbStatements.append(
              h, now, new JournalEntry.StepAnswered(runId, stepId, responses, by));
          rerun(h, s, now);
        },
        by);
  }

  /** What a verb on a parked step does to it, in the verb's transaction. */
  private interface StepChange {
    void apply(Handle h, StepRow s, Instant now);
  }

  void resolveStep(RunRef runId, String stepId, Optional<JsonNode> performed, String by) {
    onParkedStep(
        runId,
        stepId,
        (h, s, now) -> {
          if (s.status() != StepStatus.PARKED) {
            throw new FlowsException(
                ErrorCode.INVALID_INPUT,
                "step " + stepId + " is " + s.status().wire() + ", not parked",
                s.place(),
                "only a parked step can be resolved");
          }
          Optional<JsonNode> resolved =
              performed.map(p -> Resolutions.performedOutput(runId, s.spec(), p, db.limits()));
          if (resolved.isPresent()) {
            resolvePerformed(h, s, EntryCodec.text(resolved.get()), now);
          } else {
            rerun(h, s, now);
          }
          // After the elections it confirmed: a large output they hold is kept there only
          // (journal_output_once), the entry naming it.
          VerbStatements.append(
              h,
              now,
              new JournalEntry.StepResolved(runId, stepId, resolved.isPresent(), resolved, by));
        },
        by);
  }

  /** A parked step runs again: its open elections dropped, ready from now. */
  private void rerun(Handle h, StepRow s, Instant now) {
    stepWrite(h, "elections_drop_open", s).execute();
    VerbStatements.setStatus(
        db.transitions(), h, s, StepTransition.RESOLVED, Optional.of(now), now);
  }

  /**
   * One transaction: the run (after its parent) and the step locked, {@code change} applied, then
   * the run unparked when no step is parked any more and its parent resumed.
   */
  private void onParkedStep(RunRef runId, String stepId, StepChange change, String by) {
    db.tx(
        h -> {
          Instant now = db.now(h);
          // A parent before its child, as cancel and suspend lock them: no deadlock between them.
          Optional<RunRef> parentId = VerbStatements.readRun(h, runId).flatMap(RunRow::parentRunId);
          Optional<RunRow> parent = parentId.flatMap(p -> VerbStatements.lockRun(h, p));
          RunRow run =
              VerbStatements.lockRun(h, runId).orElseThrow(() -> Refusals.runNotFound(runId));
          StepRow s =
              VerbStatements.lockStep(h, runId, stepId)
                  .orElseThrow(
                      () ->
                          new NotFoundException(
                              ErrorCode.STEP_NOT_FOUND,
                              "run " + runId + " has no step " + stepId,
                              stepId));
          change.apply(h, s, now);
          RunRow current = run;
          boolean stillParked =
              VerbStatements.steps(h, runId).stream()
                  .anyMatch(x -> x.status() == StepStatus.PARKED);
          if (run.status() == RunStatus.PARKED && !stillParked) {
            current =
                run.withStatus(
                    VerbStatements.setRunStatus(db.transitions(), h, run, RunTransition.UNPARKED));
          }
          RunStatus childAfter = current.status();
          if (current.status() == RunStatus.RUNNING) {
            childAfter = RunEnds.afterSuccess(db.transitions(), h, current, now);
          }
          VerbStatements.notifyWork(h, runId);
          if (parent.isPresent() && Resolutions.wakesParent(childAfter, parent.get().status())) {
            resume(h, parent.get(), by, now);
          }
          return null;
        });
  }

  /** The step's open elections confirmed with the operator's output, and the step succeeded. */
  private void resolvePerformed(Handle h, StepRow s, String output, Instant now) {
    stepWrite(h, "elections_confirm_open", s)
        .bind("output", output)
        .bind("now", now.toString())
        .execute();
    StepStatus to = db.transitions().step(StepTransition.RESOLVED_PERFORMED, s.status());
    VerbStatements.expectOne(
        stepWrite(h, "step_resolve_performed", s)
            .bind("from", s.status().wire())
            .bind("to", to.wire())
            .bind("output", output)
            .bind("now", now.toString())
            .execute(),
        "resolve " + s.place());
  }

  private static org.jdbi.v3.core.statement.Update stepWrite(Handle h, String sql, StepRow s) {
    return VerbStatements.bindStep(h.createUpdate(Sql.text(sql)), s.runId(), s.stepId());
  }
}
