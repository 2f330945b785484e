package dev.flows.journalstore;

import dev.flows.journalstore.JournalRows.RunRow;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.AdmittedRun;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.ClaimedEffect;
import dev.flows.kernel.journal.ClaimedStart;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.HeldAdmissions;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.Routes;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepSpec;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

/**
 * {@link dev.flows.kernel.journal.Journal#admit} on Postgres, every mode: queued, one transaction
 * ({@code run_insert}, {@code step_insert}, {@code run.spawned}, a NOTIFY for ready steps); claimed
 * here, electing or not, one statement ({@code flows.start_claimed}); with its end, one statement
 * ({@code flows.start_succeeded}) group-committed by {@link SucceededAdmissions}, or, for memos one
 * statement cannot carry, claimed here then the journal's completion. A run met is answered or
 * refused by the kernel's rule ({@link AdmittedRun#answer(StartRun, String, Admit)}): a
 * one-statement admission that met one reads it in a transaction of its own.
 */
final class Admission {
  private static final PositionalSql START_CLAIMED = PositionalSql.of(Sql.text("start_claimed"));

  private final JournalDb db;
  private final StepSpecCache stepSpecs;
  private final SucceededAdmissions withEnds;
  private final BiFunction<LeaseToken, StepOutcome, CompletionAck> complete;
  private final HeldAdmissions held;

  /**
   * {@code complete} is the journal's completion, for an end one statement cannot carry; {@code
   * held} holds the admissions {@link Admit.Deferred} defers.
   */
  Admission(
      JournalDb db,
      StepSpecCache stepSpecs,
      SucceededAdmissions withEnds,
      BiFunction<LeaseToken, StepOutcome, CompletionAck> complete,
      HeldAdmissions held) {
    this.db = db;
    this.held = held;
    this.stepSpecs = stepSpecs;
    this.withEnds = withEnds;
    this.complete = complete;
  }

  <R> R admit(StartRun r, Admit<R> mode) {
    db.limits().requireRunInput(r.spec());
    return mode.answer(
        switch (mode) {
          case Admit.Queued q -> queued(r);
          case Admit.ClaimedHere c -> claimedHere(r, c);
          case Admit.Electing e -> electing(r, e);
          case Admit.WithItsEnd w -> withItsEnd(r, w);
          case Admit.Deferred d -> held.hold(r, d);
        });
  }

  private ClaimedStart claimedHere(StartRun r, Admit.ClaimedHere mode) {
    StepSpec step = ClaimedStart.onlyStep(r);
    ClaimedAdmission claimed = ClaimedAdmission.of(r, mode.worker(), mode.lease());
    Optional<ClaimedAttempt> attempt = startClaimed(claimed, step, Optional.empty());
    if (attempt.isEmpty()) {
      // The run id or key admitted a run already: answered (or refused) exactly as queued.
      return new ClaimedStart(queued(r), Optional.empty());
    }
    ClaimedAttempt a = attempt.get();
    // As a claim does, so the attempt's memos take the one-statement path.
    stepSpecs.put(a.lease().runId(), a.lease().stepId(), a.step());
    return new ClaimedStart(new StartedRun(a.lease().runId(), true, RunStatus.RUNNING), attempt);
  }

  private ClaimedEffect electing(StartRun r, Admit.Electing mode) {
    StepSpec step = ClaimedEffect.inlineStep(r, mode.surfacePath());
    ClaimedAdmission claimed = ClaimedAdmission.of(r, mode.worker(), mode.lease());
    Optional<ClaimedAttempt> attempt = startClaimed(claimed, step, Optional.of(mode.surfacePath()));
    if (attempt.isEmpty()) {
      // Refused as the rule refuses the run met, or as not new where it answers it.
      met(r).ifPresent(m -> m.answer(r, claimed.specHash(), mode));
      throw AdmittedRun.notNew(r, claimed.runId());
    }
    ClaimedAttempt a = attempt.get();
    return new ClaimedEffect(
        a, new EffectElection(a.idempotencyKey(), false, false, Optional.empty()));
  }

  /**
   * One statement when it can carry the memos ({@link MemoEffects#carriable}); else claimed here,
   * then the journal's completion.
   */
  private Optional<CompletionAck> withItsEnd(StartRun r, Admit.WithItsEnd mode) {
    // The request as given: one without a run id meets a run by its key alone.
    ClaimedAdmission claimed = ClaimedAdmission.of(r, mode.worker(), mode.lease());
    if (!MemoEffects.carriable(claimed.attempt().step(), mode.outcome().memos())) {
      return claimedHere(r, mode.claimed())
          .attempt()
          .map(a -> complete.apply(a.lease(), mode.outcome()));
    }
    Optional<CompletionAck> ack = withEnds.admit(claimed, mode.outcome());
    if (ack.isEmpty()) {
      // The statement met a run: empty where the rule answers it, else refused as it refuses.
      met(r).ifPresent(m -> m.answer(r, claimed.specHash()));
    }
    return ack;
  }

  /**
   * {@code flows.start_claimed}: the run, its step running under attempt 1, and with {@code
   * surfacePath} the attempt's election; empty, having written nothing, when the run id or
   * admission key had admitted a run already.
   */
  private Optional<ClaimedAttempt> startClaimed(
      ClaimedAdmission admission, StepSpec step, Optional<String> surfacePath) {
    LeaseToken token = admission.attempt().lease();
    String key = admission.attempt().idempotencyKey();
    StartedClaimed row =
        db.autocommitRow(
            START_CLAIMED,
            (sql, ps) -> {
              admission.bind(sql, ps, db);
              admission.bindClaim(sql, ps);
              sql.bind(ps, "surfacePath", surfacePath.orElse(null));
              sql.bind(
                  ps,
                  "recorded",
                  surfacePath
                      .map(
                          path ->
                              EntryCodec.encode(AttemptVerbs.recorded(token, path, key, false))
                                  .payload())
                      .orElse(null));
            },
            rs ->
                new StartedClaimed(
                    rs.getString("outcome"),
                    JournalRows.instant(rs, "lease_deadline"),
                    JournalRows.runStatus(rs, "run_status"),
                    Optional.ofNullable(rs.getString("step_status")).map(StepStatus::fromWire)));
    if (!row.outcome().equals("claimed")) {
      return Optional.empty();
    }
    // The rows were written in their final state: the transitions they stand for.
    db.transitions()
        .runMade(RunTransition.SPAWNED, Optional.empty(), row.runStatus().orElseThrow());
    db.transitions()
        .stepsMade(
            StepTransition.CLAIMED, Lifecycle.created(step), row.stepStatus().orElseThrow(), 1);
    ClaimedAttempt a = admission.attempt();
    return Optional.of(
        new ClaimedAttempt(
            token, row.leaseDeadline(), a.leaseMs(), step, key, admission.request().parentRunId()));
  }

  /** What {@code flows.start_claimed} answered. */
  private record StartedClaimed(
      String outcome,
      Instant leaseDeadline,
      Optional<RunStatus> runStatus,
      Optional<StepStatus> stepStatus) {}

  private StartedRun queued(StartRun r) {
    return db.tx(h -> queuedIn(h, r, db.now(h)));
  }

  /** A queued admission inside transaction {@code h} (a schedule's tick admits its run so). */
  StartedRun queuedIn(Handle h, StartRun r, Instant now) {
    String hash = RunSpecJson.hash(r.spec());
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
  }

  private static Optional<StartedRun> existingAdmission(Handle h, StartRun r, String hash) {
    return met(h, r).map(m -> m.answer(r, hash));
  }

  /** The run {@code r} meets, read in a transaction of its own; empty when there is none. */
  private Optional<AdmittedRun> met(StartRun r) {
    return db.tx(h -> met(h, r));
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
