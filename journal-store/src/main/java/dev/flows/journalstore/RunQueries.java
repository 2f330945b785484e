package dev.flows.journalstore;

import dev.flows.journalstore.JournalRows.RunRow;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.spec.StepKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * What the journal answers without changing a run: snapshots, entries, timings, and notes on why
 * ready steps wait.
 */
final class RunQueries {
  private final JournalDb db;

  RunQueries(JournalDb db) {
    this.db = db;
  }

  Optional<RunSnapshot> run(RunRef runId) {
    return db.tx(
        h ->
            VerbStatements.query(
                    h, "run_snapshot_columns", q -> q.bind("runId", runId.value()), RUN_READ)
                .stream()
                .findFirst()
                .map(read -> snapshot(h, read)));
  }

  /** A run row with what only {@link #run} reads: its queue and why it waits. */
  private record RunRead(RunRow row, String queue, Optional<String> waitingReason) {}

  private static final RowMapper<RunRead> RUN_READ =
      (rs, ctx) ->
          new RunRead(
              JournalRows.RUN.map(rs, ctx),
              rs.getString("queue"),
              Optional.ofNullable(rs.getString("waiting_reason")));

  private static RunSnapshot snapshot(Handle h, RunRead read) {
    RunRow r = read.row();
    return new RunSnapshot(
        r.runId(),
        r.name(),
        r.status(),
        r.parentRunId(),
        r.admissionKey(),
        EntryCodec.canonicalSpec(r.spec()),
        r.specHash(),
        r.createdAt(),
        r.completedAt(),
        r.completionReason(),
        VerbStatements.steps(h, r.runId()).stream()
            .map(
                s ->
                    new StepSnapshot(
                        s.stepId(),
                        s.kind(),
                        s.status(),
                        s.attempts(),
                        s.notBefore(),
                        s.lastReason(),
                        s.output()))
            .toList(),
        r.rerunOf(),
        read.queue(),
        read.waitingReason());
  }

  private static final PositionalSql ENTRIES_OF_RUN = PositionalSql.of(Sql.text("entries_of_run"));
  private static final PositionalSql RUNS_CHILDREN = PositionalSql.of(Sql.text("runs_children"));

  /**
   * The run's entries in order: one statement in autocommit, as every resumed body reads them
   * before it replays (its snapshot is the statement's; a transaction would only add a commit).
   */
  List<JournalRecord> entries(RunRef runId) {
    List<JournalRecord> entries = new ArrayList<>();
    db.autocommitRows(
        ENTRIES_OF_RUN,
        (sql, ps) -> sql.bind(ps, "runId", runId.value()),
        rs -> entries.add(entry(runId, rs)));
    return entries;
  }

  /** The run's entries in order, read in the caller's transaction. */
  static List<JournalRecord> entries(org.jdbi.v3.core.Handle h, RunRef runId) {
    return VerbStatements.query(
        h, "entries_of_run", q -> q.bind("runId", runId.value()), (rs, ctx) -> entry(runId, rs));
  }

  private static JournalRecord entry(RunRef runId, java.sql.ResultSet rs)
      throws java.sql.SQLException {
    return new JournalRecord(
        rs.getLong("seq"),
        JournalRows.instant(rs, "at"),
        EntryCodec.decode(
            runId, rs.getString("entry_type"), EntryCodec.parse(rs.getString("payload"))));
  }

  /** The run's children in admission order: one statement in autocommit, as {@link #entries}. */
  List<RunRef> children(RunRef parent) {
    List<RunRef> children = new ArrayList<>();
    db.autocommitRows(
        RUNS_CHILDREN,
        (sql, ps) -> sql.bind(ps, "parentRunId", parent.value()),
        rs -> children.add(new RunRef(rs.getString("run_id"))));
    return children;
  }

  Optional<Duration> untilNextLeaseDeadline() {
    return db.tx(
        h ->
            h.createQuery(Sql.text("leases_next_deadline"))
                .bind("now", db.clock())
                .map((rs, ctx) -> untilMs(rs.getDouble("until_ms")))
                .findFirst());
  }

  Optional<Duration> untilNextClaimable(ClaimRequest request) {
    if (request.kinds().isEmpty()) {
      return Optional.empty();
    }
    List<String> kinds = request.kinds().stream().map(StepKind::wire).sorted().toList();
    return db.tx(
        h ->
            h.createQuery(Sql.text("steps_next_claimable"))
                .bind("now", db.clock())
                .bindArray("kinds", String.class, kinds)
                .bind("anyRoute", request.routes().isEmpty())
                .bindArray(
                    "routes", String.class, request.routes().map(List::copyOf).orElse(List.of()))
                .bindArray("routePrefixes", String.class, List.copyOf(request.routePrefixes()))
                .bind("anyQueue", request.queues().isEmpty())
                .bindArray(
                    "queues", String.class, request.queues().map(List::copyOf).orElse(List.of()))
                .map((rs, ctx) -> untilMs(rs.getDouble("until_ms")))
                .findFirst());
  }

  int noteUnaccepted(ClaimRequest request, String routePrefix, String reason) {
    if (request.kinds().isEmpty() || request.capacity() == 0 || request.routes().isEmpty()) {
      return 0;
    }
    List<String> kinds = request.kinds().stream().map(StepKind::wire).sorted().toList();
    return db.tx(
        h ->
            h.createUpdate(Sql.text("steps_note_unaccepted"))
                .bind("now", db.clock())
                .bindArray("kinds", String.class, kinds)
                .bind("routePrefix", routePrefix)
                .bind("anyRoute", false)
                .bindArray("routes", String.class, List.copyOf(request.routes().get()))
                .bindArray("routePrefixes", String.class, List.copyOf(request.routePrefixes()))
                .bind("anyQueue", request.queues().isEmpty())
                .bindArray(
                    "queues", String.class, request.queues().map(List::copyOf).orElse(List.of()))
                .bind("limit", request.capacity())
                .bind("reason", reason)
                .bind("workerId", request.workerId().value())
                .execute());
  }

  /** A span in milliseconds from the database, never negative (past is "now"). */
  private static Duration untilMs(double ms) {
    return ms <= 0 ? Duration.ZERO : Duration.ofNanos((long) Math.ceil(ms * 1_000_000));
  }
}
