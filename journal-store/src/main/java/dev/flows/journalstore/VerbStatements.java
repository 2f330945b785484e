package dev.flows.journalstore;

import static dev.flows.journalstore.JournalRows.RUN;
import static dev.flows.journalstore.JournalRows.STEP;

import dev.flows.journalstore.JournalRows.ElectionRow;
import dev.flows.journalstore.JournalRows.RunRow;
import dev.flows.journalstore.JournalRows.StepRow;
import dev.flows.kernel.journal.AttemptEnd;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.lifecycle.TransitionLog;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * The statements a verb's transaction is made of (Jdbi, on the verb's handle): the clock, the
 * locks, the writes of a step's status, elections, journal entries and NOTIFY. A write that changes
 * a status takes it from the kernel's table ({@link Lifecycle}) and names the old status in its
 * WHERE clause.
 */
final class VerbStatements {
  private VerbStatements() {}

  static <T> List<T> query(Handle h, String sql, UnaryOperator<Query> binder, RowMapper<T> mapper) {
    return binder.apply(h.createQuery(Sql.text(sql))).map(mapper).list();
  }

  static Optional<RunRow> lockRun(Handle h, RunRef runId) {
    return query(h, "run_lock", q -> q.bind("runId", runId.value()), RUN).stream().findFirst();
  }

  static Optional<RunRow> readRun(Handle h, RunRef runId) {
    return query(h, "run_columns", q -> q.bind("runId", runId.value()), RUN).stream().findFirst();
  }

  static Optional<StepRow> lockStep(Handle h, RunRef runId, String stepId) {
    return query(h, "step_lock", q -> q.bind("runId", runId.value()).bind("stepId", stepId), STEP)
        .stream()
        .findFirst();
  }

  /** In position order; callers hold the run's lock first, so every locker agrees on order. */
  static List<StepRow> lockSteps(Handle h, RunRef runId) {
    return query(h, "steps_of_run_lock", q -> q.bind("runId", runId.value()), STEP);
  }

  static List<StepRow> steps(Handle h, RunRef runId) {
    return query(h, "steps_of_run", q -> q.bind("runId", runId.value()), STEP);
  }

  static Optional<ElectionRow> lockElection(Handle h, LeaseToken lease, String surfacePath) {
    return query(
            h,
            "election_lock",
            q ->
                q.bind("runId", lease.runId().value())
                    .bind("stepId", lease.stepId())
                    .bind("surfacePath", surfacePath),
            (rs, ctx) ->
                new ElectionRow(
                    surfacePath,
                    rs.getInt("attempt"),
                    rs.getString("idempotency_key"),
                    rs.getBoolean("confirmed"),
                    JournalRows.json(rs, "output")))
        .stream()
        .findFirst();
  }

  /** The elections the attempt holds, open or confirmed. */
  static List<ElectionRow> electionsOf(Handle h, LeaseToken lease) {
    return query(
        h,
        "elections_of_attempt",
        q ->
            q.bind("runId", lease.runId().value())
                .bind("stepId", lease.stepId())
                .bind("attempt", lease.attempt()),
        (rs, ctx) ->
            new ElectionRow(
                rs.getString("surface_path"),
                lease.attempt(),
                rs.getString("idempotency_key"),
                rs.getBoolean("confirmed"),
                Optional.empty()));
  }

  /**
   * The step's first election recorded and never confirmed, by any of its attempts: read only when
   * its last attempt ends with none left ({@link AttemptEnd}'s effect of unknown outcome).
   */
  static Optional<JournalEntry.EffectRef> unconfirmedElection(
      Handle h, RunRef runId, String stepId) {
    return query(
            h,
            "step_unconfirmed_election",
            q -> bindStep(q, runId, stepId),
            (rs, ctx) ->
                new JournalEntry.EffectRef(
                    rs.getString("surface_path"), rs.getString("idempotency_key")))
        .stream()
        .findFirst();
  }

  static <S extends SqlStatement<S>> S fence(S statement, LeaseToken lease) {
    return bindStep(statement, lease.runId(), lease.stepId())
        .bind("attempt", lease.attempt())
        .bind("leaseId", lease.leaseId());
  }

  static <S extends SqlStatement<S>> S bindStep(S statement, RunRef runId, String stepId) {
    return statement.bind("runId", runId.value()).bind("stepId", stepId);
  }

  /** Ends the live attempt {@code lease} names; false when its lease is lost. */
  static boolean endFenced(
      TransitionLog log,
      Handle h,
      StepRow s,
      LeaseToken lease,
      AttemptEnd end,
      Optional<Instant> notBefore,
      Instant now) {
    StepStatus to = log.step(end.transition(), s.status());
    return fence(h.createUpdate(Sql.text("step_end_fenced")), lease)
            .bind("from", s.status().wire())
            .bind("to", to.wire())
            .bind("reason", end.reason().wire())
            .bind("givenBack", !end.usesIteration())
            .bind("output", (String) null)
            .bind("notBefore", notBefore.map(Instant::toString).orElse(null))
            .bind("now", now.toString())
            .execute()
        == 1;
  }

  /**
   * Ends the step's attempt on the journal's own authority (cancel, expiry), and journals it: such
   * an end names no effects, since the attempt never reported; its tail is the end's own, if any.
   */
  static void endUnreported(
      TransitionLog log,
      Handle h,
      StepRow s,
      AttemptEnd end,
      Optional<Instant> notBefore,
      Instant now) {
    StepStatus to = log.step(end.transition(), s.status());
    expectOne(
        bindStep(h.createUpdate(Sql.text("step_end_unfenced")), s.runId(), s.stepId())
            .bind("from", s.status().wire())
            .bind("to", to.wire())
            .bind("attempt", s.attempts())
            .bind("reason", end.reason().wire())
            .bind("givenBack", !end.usesIteration())
            .bind("notBefore", notBefore.map(Instant::toString).orElse(null))
            .bind("now", now.toString())
            .execute(),
        "end attempt " + s.attempts() + " of " + s.place());
    append(
        h,
        now,
        new JournalEntry.StepCompleted(
            s.runId(),
            s.stepId(),
            s.attempts(),
            end.reason(),
            end.disposition(),
            Optional.empty(),
            List.of(),
            end.tail(),
            notBefore));
  }

  /** Changes the run's status by {@code t}; answers the status written. */
  static RunStatus setRunStatus(TransitionLog log, Handle h, RunRow run, RunTransition t) {
    RunStatus to = log.run(t, Optional.of(run.status()));
    expectOne(
        h.createUpdate(Sql.text("run_set_status"))
            .bind("runId", run.runId().value())
            .bind("from", run.status().wire())
            .bind("to", to.wire())
            .execute(),
        t + " on run " + run.runId());
    return to;
  }

  static void setStatus(
      TransitionLog log,
      Handle h,
      StepRow s,
      StepTransition t,
      Optional<Instant> notBefore,
      Instant now) {
    StepStatus to = log.step(t, s.status());
    expectOne(
        bindStep(h.createUpdate(Sql.text("step_set_status")), s.runId(), s.stepId())
            .bind("from", s.status().wire())
            .bind("to", to.wire())
            .bind("notBefore", notBefore.map(Instant::toString).orElse(null))
            .bind("now", now.toString())
            .execute(),
        t + " on " + s.place());
  }

  static void expectOne(int rows, String what) {
    if (rows != 1) {
      // Every caller holds the row lock and has just read the row: this is a journal bug.
      throw new IllegalStateException(what + " changed " + rows + " rows, expected 1");
    }
  }

  static void append(Handle h, Instant now, JournalEntry entry) {
    EntryCodec.Row row = EntryCodec.encode(entry);
    h.createUpdate(Sql.text("entry_insert"))
        .bind("at", now.toString())
        .bind("runId", entry.runId().value())
        .bind("type", row.type())
        .bind("stepId", row.stepId().orElse(null))
        .bind("attempt", row.attempt().orElse(null))
        .bind("payload", row.payload())
        .execute();
  }

  static void notifyWork(Handle h, RunRef runId) {
    h.createQuery(Sql.text("notify_work")).bind("runId", runId.value()).mapTo(String.class).one();
  }
}
