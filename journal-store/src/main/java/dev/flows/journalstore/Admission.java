package dev.flows.journalstore;

import dev.flows.journalstore.JournalRows.RunRow;
import dev.flows.kernel.journal.AdmittedRun;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.Routes;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepSpec;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

/** Admission of a run: idempotent by run id and admission key, its steps inserted and journaled. */
final class Admission {
  private final JournalDb db;

  Admission(JournalDb db) {
    this.db = db;
  }

  StartedRun startRun(StartRun r) {
    String hash = RunSpecJson.hash(r.spec());
    return db.tx(
        h -> {
          Instant now = db.now(h);
          // A concurrent start with the same id or key makes our insert do nothing; the
          // second pass then finds that run.
          for (int pass = 0; ; pass++) {
            Optional<StartedRun> existing = existingAdmission(h, r, hash);
            if (existing.isPresent()) {
              return existing.get();
            }
            RunRef runId = r.runId().orElseGet(RunRef::random);
            if (insertRun(h, r, runId, hash, now)) {
              // Taken once the row is in: a concurrent start of the same run inserts nothing.
              db.transitions().run(RunTransition.SPAWNED, Optional.empty());
              return spawn(h, r, runId, hash, now);
            }
            if (pass > 0) {
              throw new IllegalStateException("run insert conflicted twice for " + runId);
            }
          }
        });
  }

  private static Optional<StartedRun> existingAdmission(Handle h, StartRun r, String hash) {
    return met(h, r).map(m -> m.answer(r, hash));
  }

  /**
   * The run {@code r} meets, read in a transaction of its own: for an admission made in one
   * statement that found one, to answer or refuse it as startRun would. Empty when there is none
   * (any more).
   */
  Optional<AdmittedRun> met(StartRun r) {
    return db.tx(h -> met(h, r));
  }

  /**
   * What a one-statement admission that met a run answers, as startRun answers it (not created), or
   * its refusal as startRun's; empty when the run it met is gone.
   */
  Optional<StartedRun> answerMet(ClaimedAdmission claimed) {
    StartRun r = claimed.request();
    return met(r).map(m -> m.answer(r, claimed.specHash()));
  }

  /** The run under {@code r}'s run id (locked), else under its admission key. */
  private static Optional<AdmittedRun> met(Handle h, StartRun r) {
    Optional<RunRow> byId = r.runId().flatMap(id -> VerbStatements.lockRun(h, id));
    Optional<RunRow> row =
        byId.isPresent()
            ? byId
            : VerbStatements.query(
                    h,
                    "run_by_admission_key",
                    q -> q.bind("admissionKey", r.admissionKey()),
                    JournalRows.RUN)
                .stream()
                .findFirst();
    return row.map(
        found ->
            new AdmittedRun(found.runId(), found.admissionKey(), found.specHash(), found.status()));
  }

  private static boolean insertRun(Handle h, StartRun r, RunRef runId, String hash, Instant now) {
    RunStatus status = RunTransition.SPAWNED.to();
    return h.createUpdate(Sql.text("run_insert"))
            .bind("runId", runId.value())
            .bind("name", r.spec().name())
            .bind("status", status.wire())
            .bind("parentRunId", r.parentRunId().map(RunRef::value).orElse(null))
            .bind("admissionKey", r.admissionKey())
            .bind("spec", EntryCodec.text(RunSpecJson.write(r.spec())))
            .bind("specHash", hash)
            .bind("createdBy", r.createdBy())
            .bind("rerunOf", r.rerunOf().map(RunRef::value).orElse(null))
            .bind("now", now.toString())
            .bind("queue", r.queue())
            .execute()
        == 1;
  }

  private static StartedRun spawn(Handle h, StartRun r, RunRef runId, String hash, Instant now) {
    PreparedBatch batch = h.prepareBatch(Sql.text("step_insert"));
    boolean anyReady = false;
    List<StepSpec> steps = r.spec().steps();
    for (int i = 0; i < steps.size(); i++) {
      StepSpec s = steps.get(i);
      StepStatus status = Lifecycle.created(s);
      anyReady |= status == StepStatus.READY;
      batch
          .bind("runId", runId.value())
          .bind("stepId", s.id())
          .bind("position", i)
          .bind("kind", s.kind().wire())
          .bind("route", Routes.of(s))
          .bind("status", status.wire())
          .bindArray("dependsOn", String.class, s.dependsOn())
          .bind("maxIterations", s.maxIterations())
          .bind("spec", EntryCodec.text(RunSpecJson.writeStep(s)))
          .bind("now", now.toString())
          .add();
    }
    batch.execute();
    VerbStatements.append(
        h,
        now,
        new JournalEntry.RunSpawned(
            runId,
            RunSpecJson.write(r.spec()),
            hash,
            r.parentRunId(),
            r.admissionKey(),
            r.createdBy(),
            r.rerunOf()));
    if (anyReady) {
      VerbStatements.notifyWork(h, runId);
    }
    return new StartedRun(runId, true, RunStatus.RUNNING);
  }
}
