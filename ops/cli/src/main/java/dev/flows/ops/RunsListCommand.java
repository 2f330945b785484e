package dev.flows.ops;

import static dev.flows.ops.RunsCommand.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.lifecycle.RunStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code flows runs list}: runs newest first from {@code flows.runs_overview}. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "Runs, newest first (root runs only unless --all), from flows.runs_overview.")
final class ListRuns implements Callable<Integer> {
  private static final Pattern AGO = Pattern.compile("(\\d+)([smhd])");

  @Option(
      names = "--status",
      paramLabel = "STATUS",
      description = "running, parked, succeeded, failed or canceled")
  String status;

  @Option(
      names = "--flow",
      paramLabel = "NAME",
      description = "Only runs of this flow (the run name).")
  String flow;

  @Option(names = "--queue", paramLabel = "QUEUE", description = "Only runs of this queue.")
  String queue;

  @Option(
      names = "--since",
      paramLabel = "WHEN",
      description = "Only runs created since: a duration ago (30m, 2h, 7d) or an ISO instant/date.")
  String since;

  @Option(names = "--limit", paramLabel = "N", description = "At most this many rows (default 50).")
  Integer limit;

  @Option(names = "--all", description = "Include child runs (one per f.mcp / f.run call).")
  boolean all;

  private final Session s;

  ListRuns(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() {
    Query q =
        new Query(
            Optional.ofNullable(status).map(w -> status(w, "--status")),
            Optional.ofNullable(flow),
            Optional.ofNullable(queue),
            Optional.ofNullable(since).map(w -> since(w, "--since")),
            Optional.empty(),
            limit(limit, s.config(), "--limit"),
            all);
    ArrayNode runs = s.readyDatabase().withConnection(c -> rows(c, q));
    RunWaits.annotate(s::commandJournal, runs);
    ObjectNode out = s.object();
    out.set("runs", runs);
    s.emit(out, p -> table(p, runs));
    return Exit.SUCCESS;
  }

  /** The rows as a table; STATUS is the status people read (waits shown, {@link RunWaits}). */
  private void table(java.io.PrintStream p, ArrayNode runs) {
    if (runs.isEmpty()) {
      p.println("no runs" + (all ? "" : " (root runs; --all includes children)"));
      return;
    }
    int width = "STATUS".length();
    for (JsonNode r : runs) {
      width = Math.max(width, r.path("displayStatus").asText().length());
    }
    String row = "%-38s %-20s %-" + width + "s %-6s %-8s %s";
    p.println(
        String.format(Locale.ROOT, row, "RUN", "FLOW", "STATUS", "STEPS", "CHILDREN", "CREATED"));
    for (JsonNode r : runs) {
      p.println(
          String.format(
              Locale.ROOT,
              row,
              r.path("runId").asText(),
              r.path("name").asText(),
              r.path("displayStatus").asText(),
              r.path("stepsSucceeded").asInt() + "/" + r.path("stepsTotal").asInt(),
              r.path("children").asLong(),
              r.path("createdAt").asText()));
    }
  }

  /**
   * Which runs to list: the filters of {@code runs list} and of the web console; {@code idOrKey}
   * matches a run id, an admission key or the idempotency key of one of its calls exactly.
   */
  record Query(
      Optional<RunStatus> status,
      Optional<String> flow,
      Optional<String> queue,
      Optional<Instant> since,
      Optional<String> idOrKey,
      int limit,
      boolean all) {}

  /** The limit asked for ({@code null}: the default), refused outside 1..max at {@code place}. */
  static int limit(Integer asked, OpsConfig config, String place) {
    int max = asked == null ? config.listDefaultLimit() : asked;
    if (max < 1 || max > config.listMaxLimit()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          place + " must be between 1 and " + config.listMaxLimit(),
          place,
          "pass a smaller positive number");
    }
    return max;
  }

  private static ArrayNode query(Connection c, String sql, List<Object> args) throws SQLException {
    ArrayNode runs = Session.JSON.createArrayNode();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.size(); i++) {
        ps.setObject(i + 1, args.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          row(rs, runs.addObject());
        }
      }
    }
    return runs;
  }

  /** One run of the listing, as {@code runs list --json} prints it. */
  private static void row(ResultSet rs, ObjectNode r) throws SQLException {
    r.put("runId", rs.getString(1));
    r.put("name", rs.getString(2));
    r.put("status", rs.getString(3));
    r.put("parentRunId", rs.getString(4));
    r.put("createdAt", rs.getTimestamp(5).toInstant().toString());
    Timestamp done = rs.getTimestamp(6);
    r.put("completedAt", done == null ? null : done.toInstant().toString());
    r.put("completionReason", rs.getString(7));
    r.put("stepsTotal", rs.getInt(8));
    r.put("stepsSucceeded", rs.getInt(9));
    r.put("stepsRunning", rs.getInt(10));
    r.put("stepsParked", rs.getInt(11));
    r.put("stepsFailed", rs.getInt(12));
    r.put("attemptsTotal", rs.getLong(13));
    r.put("rerunOf", rs.getString(14));
    r.put("queue", rs.getString(15));
    if (rs.getString(16) != null) {
      r.put("waitingReason", rs.getString(16));
    }
    r.put("children", rs.getLong(17));
  }

  /** The runs {@code q} selects, newest first, as {@code runs list --json} prints them. */
  static ArrayNode rows(Connection c, Query q) throws SQLException {
    StringBuilder sql =
        new StringBuilder(
            "SELECT o.run_id, o.name, o.status::text, o.parent_run_id, o.created_at,"
                + " o.completed_at, o.completion_reason::text, o.steps_total,"
                + " o.steps_succeeded, o.steps_running, o.steps_parked, o.steps_failed,"
                + " o.attempts_total, o.rerun_of, o.queue, o.waiting_reason,"
                // Views only, so the read-only role (ops/sql/readonly-role.sql) can list too.
                + " (SELECT count(*) FROM flows.runs_overview c"
                + " WHERE c.parent_run_id = o.run_id)"
                + " FROM flows.runs_overview o WHERE NOT o.tombstone");
    List<Object> args = new ArrayList<>();
    // A run asked for by id or key is found wherever it is in a tree.
    if (!q.all() && q.idOrKey().isEmpty()) {
      sql.append(" AND o.parent_run_id IS NULL");
    }
    q.status()
        .ifPresent(
            x -> {
              sql.append(" AND o.status::text = ?");
              args.add(x.wire());
            });
    q.flow()
        .ifPresent(
            f -> {
              sql.append(" AND o.name = ?");
              args.add(f);
            });
    q.queue()
        .ifPresent(
            x -> {
              sql.append(" AND o.queue = ?");
              args.add(x);
            });
    q.since()
        .ifPresent(
            t -> {
              sql.append(" AND o.created_at >= ?");
              args.add(Timestamp.from(t));
            });
    q.idOrKey()
        .ifPresent(
            k -> {
              // One semi-join over three index lookups: an OR of them would scan every run.
              sql.append(" AND o.run_id IN (SELECT CAST(? AS text) UNION")
                  .append(" SELECT k.run_id FROM flows.runs k WHERE k.admission_key = ? UNION")
                  .append(" SELECT e.run_id FROM flows.effect_elections e")
                  .append(" WHERE e.idempotency_key = ?)");
              args.add(k);
              args.add(k);
              args.add(k);
            });
    sql.append(" ORDER BY o.created_at DESC, o.run_id LIMIT ?");
    args.add(q.limit());
    return query(c, sql.toString(), args);
  }

  static RunStatus status(String wire, String place) {
    try {
      return RunStatus.fromWire(wire.strip().toLowerCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "unknown run status " + wire,
          place,
          "use running, parked, succeeded, failed or canceled");
    }
  }

  static Instant since(String text, String place) {
    String t = text.strip();
    Matcher m = AGO.matcher(t);
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        Duration d =
            switch (m.group(2)) {
              case "s" -> Duration.ofSeconds(n);
              case "m" -> Duration.ofMinutes(n);
              case "h" -> Duration.ofHours(n);
              default -> Duration.ofDays(n);
            };
        return Instant.now().minus(d);
      }
      if (t.length() == "2026-01-01".length()) {
        return LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant();
      }
      return Instant.parse(t);
    } catch (DateTimeException | ArithmeticException | NumberFormatException e) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "cannot read " + place + " " + text,
          place,
          "use a duration ago (30m, 2h, 7d), a date (2026-11-29) or an instant"
              + " (2026-11-29T10:00:00Z)");
    }
  }
}
