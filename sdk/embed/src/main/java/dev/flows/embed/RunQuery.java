package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.sdk.runtime.PublicError;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A search of runs, newest first ({@code flows runs list} in code): {@code
 * flows.runs().named("triage").state(RunState.FAILED).createdAfter(t).list(50)}. Root runs only
 * unless {@link #includeChildren}. Immutable: each filter answers a new query. Reads the {@code
 * flows.runs_overview} view, so a read-only role can list too; pruned runs are not listed.
 *
 * <p>Paging: {@link #list} answers at most {@code limit} runs; {@code query.after(last).list(n)}
 * answers the next page, the runs listed after {@code last} in the same order (by creation time,
 * then id), so a page is never skipped or repeated while runs are being added.
 */
public final class RunQuery {
  /** The most runs one {@link #list} answers. */
  public static final int MAX_PAGE = 1000;

  private final DataSource db;
  private final Optional<String> flow;
  private final Optional<RunState> state;
  private final Optional<String> queue;
  private final Optional<Instant> createdAfter;
  private final Optional<RunInfo> after;
  private final boolean children;

  private RunQuery(
      DataSource db,
      Optional<String> flow,
      Optional<RunState> state,
      Optional<String> queue,
      Optional<Instant> createdAfter,
      Optional<RunInfo> after,
      boolean children) {
    this.db = db;
    this.flow = flow;
    this.state = state;
    this.queue = queue;
    this.createdAfter = createdAfter;
    this.after = after;
    this.children = children;
  }

  static RunQuery all(DataSource db) {
    return new RunQuery(
        db,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        false);
  }

  /** Only runs of the flow named {@code flow}. */
  public RunQuery named(String flow) {
    Objects.requireNonNull(flow, "flow");
    return new RunQuery(db, Optional.of(flow), state, queue, createdAfter, after, children);
  }

  /** Only runs in {@code state}. */
  public RunQuery state(RunState state) {
    Objects.requireNonNull(state, "state");
    return new RunQuery(db, flow, Optional.of(state), queue, createdAfter, after, children);
  }

  /** Only runs on {@code queue}. */
  public RunQuery queue(String queue) {
    Objects.requireNonNull(queue, "queue");
    return new RunQuery(db, flow, state, Optional.of(queue), createdAfter, after, children);
  }

  /** Only runs created at or after {@code t}. */
  public RunQuery createdAfter(Instant t) {
    Objects.requireNonNull(t, "t");
    return new RunQuery(db, flow, state, queue, Optional.of(t), after, children);
  }

  /** The page after {@code last}, a run an earlier {@link #list} of this query answered. */
  public RunQuery after(RunInfo last) {
    Objects.requireNonNull(last, "last");
    return new RunQuery(db, flow, state, queue, createdAfter, Optional.of(last), children);
  }

  /** Child runs too (one per {@code f.mcp}, {@code f.command}, {@code f.flow} call). */
  public RunQuery includeChildren() {
    return new RunQuery(db, flow, state, queue, createdAfter, after, true);
  }

  /**
   * At most {@code limit} runs, newest first.
   *
   * @throws RuntimeException {@code invalid_input} for a limit outside 1..{@link #MAX_PAGE}; {@code
   *     database_error} when the database cannot be read
   */
  public List<RunInfo> list(int limit) {
    return PublicError.guard(() -> page(limit));
  }

  private List<RunInfo> page(int limit) {
    if (limit < 1 || limit > MAX_PAGE) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "a page holds 1 to " + MAX_PAGE + " runs, got " + limit,
          "RunQuery.list",
          "pass a limit between 1 and " + MAX_PAGE);
    }
    List<Object> args = new ArrayList<>();
    String sql = sql(args) + " ORDER BY o.created_at DESC, o.run_id DESC LIMIT ?";
    args.add(limit);
    try (Connection c = db.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.size(); i++) {
        ps.setObject(i + 1, args.get(i));
      }
      List<RunInfo> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(row(rs));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new FlowsException(
          ErrorCode.DATABASE_ERROR,
          "cannot list runs: " + e.getMessage(),
          "flows.runs_overview",
          "check the database is reachable and its schema migrated",
          true,
          e);
    }
  }

  private String sql(List<Object> args) {
    StringBuilder sql =
        new StringBuilder(
            "SELECT o.run_id, o.name, o.status::text, o.parent_run_id, o.admission_key, o.queue,"
                + " o.created_at, o.completed_at, o.completion_reason::text, o.waiting_reason"
                + " FROM flows.runs_overview o WHERE NOT o.tombstone");
    if (!children) {
      sql.append(" AND o.parent_run_id IS NULL");
    }
    flow.ifPresent(f -> where(sql, args, " AND o.name = ?", f));
    state.ifPresent(s -> where(sql, args, " AND o.status::text = ?", s.wire()));
    queue.ifPresent(q -> where(sql, args, " AND o.queue = ?", q));
    createdAfter.ifPresent(t -> where(sql, args, " AND o.created_at >= ?", Timestamp.from(t)));
    after.ifPresent(
        last -> {
          sql.append(" AND (o.created_at, o.run_id) < (?, ?)");
          args.add(Timestamp.from(last.createdAt()));
          args.add(last.id().value());
        });
    return sql.toString();
  }

  private static void where(StringBuilder sql, List<Object> args, String clause, Object arg) {
    sql.append(clause);
    args.add(arg);
  }

  private static RunInfo row(ResultSet rs) throws SQLException {
    Timestamp done = rs.getTimestamp(8);
    return new RunInfo(
        new dev.flows.sdk.RunId(rs.getString(1)),
        rs.getString(2),
        RunState.valueOf(rs.getString(3).toUpperCase(java.util.Locale.ROOT)),
        Optional.ofNullable(rs.getString(4)).map(dev.flows.sdk.RunId::new),
        rs.getString(5),
        rs.getString(6),
        rs.getTimestamp(7).toInstant(),
        Optional.ofNullable(done).map(Timestamp::toInstant),
        Optional.ofNullable(rs.getString(9)),
        Optional.ofNullable(rs.getString(10)));
  }
}
