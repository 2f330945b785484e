package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fills a journal fast with copies of real runs: every row a template run wrote (run, steps,
 * elections, journal entries, signals, wait notes: every table with a {@code run_id}) is copied
 * with {@code INSERT ... SELECT ... generate_series}, a new run id and admission key per copy and
 * its times shifted back a millisecond per copy, so the copies are shaped exactly as the engine
 * writes them. Triggers and foreign-key checks are off for the fill ({@code
 * session_replication_role = replica}): the rows copied are ones the engine already wrote and
 * checked. The tables' secondary indexes (those no constraint owns) are dropped for the copying and
 * built again after it from their own definitions ({@code pg_get_indexdef}): one sorted build per
 * index instead of a random insert per row, and the same indexes the engine's migrations made.
 */
final class GrowthFill {
  /** Copies per statement (one transaction each). */
  static final int BATCH = 50_000;

  private GrowthFill() {}

  /**
   * {@code count} copies of run {@code template}, admission keys {@code prefix1..prefixN}; run ids
   * the same, or with {@code engineIds} shaped as {@code RunRef.random} makes them ({@code run_},
   * 12 hex digits of the copy's creation in milliseconds, 20 of the md5 of its key), so the copies
   * sit in the run-id indexes where the engine's own runs would.
   */
  record Copies(String template, String prefix, long count, boolean engineIds) {
    Copies(String template, String prefix, long count) {
      this(template, prefix, count, false);
    }
  }

  /** Writes {@code copies} copies of run {@code template}, ids {@code prefix1..prefixN}. */
  static void copies(String url, String template, String prefix, long copies) throws Exception {
    copies(url, List.of(new Copies(template, prefix, copies)));
  }

  /** Writes every one of {@code all}, the secondary indexes built once after the last. */
  static void copies(String url, List<Copies> all) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("SET session_replication_role = replica");
      List<String> indexes = secondaryIndexes(c);
      for (String index : indexes) {
        s.execute("DROP INDEX flows." + index.substring(0, index.indexOf(' ')));
      }
      for (Copies copies : all) {
        log("  copying " + copies.count() + " of " + copies.template() + " as " + copies.prefix());
        write(c, copies);
      }
      long t0 = System.nanoTime();
      s.execute("SET maintenance_work_mem = '256MB'");
      for (String index : indexes) {
        s.execute(index.substring(index.indexOf(' ') + 1));
      }
      log(
          "  "
              + indexes.size()
              + " indexes built in "
              + (System.nanoTime() - t0) / 1_000_000
              + " ms");
      s.execute("SET session_replication_role = DEFAULT");
    }
  }

  private static void write(Connection c, Copies copies) throws Exception {
    Map<String, String> inserts = inserts(c, copies.prefix(), idOf(c, copies));
    for (long from = 1; from <= copies.count(); from += BATCH) {
      long to = Math.min(copies.count(), from + BATCH - 1);
      for (Map.Entry<String, String> t : inserts.entrySet()) {
        try (PreparedStatement ps = c.prepareStatement(t.getValue())) {
          ps.setLong(1, from);
          ps.setLong(2, to);
          ps.setString(3, copies.template());
          ps.executeUpdate();
        }
      }
      if (to % 1_000_000 == 0) {
        log("  " + copies.prefix() + " " + to + " of " + copies.count());
      }
    }
  }

  /**
   * The indexes of the run tables that no constraint owns, each as its name, a space and the
   * statement that creates it.
   */
  private static List<String> secondaryIndexes(Connection c) throws Exception {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT i.relname || ' ' || pg_get_indexdef(x.indexrelid) FROM pg_index x"
                + " JOIN pg_class i ON i.oid = x.indexrelid"
                + " JOIN pg_class t ON t.oid = x.indrelid"
                + " JOIN pg_namespace n ON n.oid = t.relnamespace"
                + " WHERE n.nspname = 'flows' AND t.relname = ANY (?)"
                + " AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)"
                + " ORDER BY i.relname")) {
      ps.setArray(1, c.createArrayOf("text", tables(c).toArray()));
      try (ResultSet r = ps.executeQuery()) {
        while (r.next()) {
          out.add(r.getString(1));
        }
      }
    }
    return out;
  }

  /** Refreshes the planner's statistics and the visibility maps after a fill. */
  static void analyze(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      for (String t : tables(c)) {
        s.execute("VACUUM ANALYZE flows." + t);
      }
    }
  }

  /** Per table holding run rows, the copying statement (from, to, template run id). */
  /** The SQL of a copy's run id ({@code g}: its number). */
  private static String idOf(Connection c, Copies copies) throws Exception {
    if (!copies.engineIds()) {
      return "'" + copies.prefix() + "' || g";
    }
    long createdMs;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT (extract(epoch FROM created_at) * 1000)::bigint FROM flows.runs"
                + " WHERE run_id = ?")) {
      ps.setString(1, copies.template());
      try (ResultSet r = ps.executeQuery()) {
        r.next();
        createdMs = r.getLong(1);
      }
    }
    // Copy g was created g ms before its template (its times are shifted so), and its id says so.
    return "'run_' || lpad(to_hex("
        + createdMs
        + " - g), 12, '0') || left(md5('"
        + copies.prefix()
        + "' || g), 20)";
  }

  private static Map<String, String> inserts(Connection c, String prefix, String runId)
      throws Exception {
    if (!prefix.matches("[a-z0-9-]+")) {
      throw new IllegalArgumentException("a copy prefix is lower-case letters, digits and '-'");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String t : tables(c)) {
      List<String> cols = new ArrayList<>();
      List<String> exprs = new ArrayList<>();
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT column_name, data_type FROM information_schema.columns"
                  + " WHERE table_schema = 'flows' AND table_name = ? AND is_identity = 'NO'"
                  + " AND is_generated = 'NEVER'"
                  + " AND coalesce(column_default, '') NOT LIKE 'nextval%'"
                  + " ORDER BY ordinal_position")) {
        ps.setString(1, t);
        try (ResultSet r = ps.executeQuery()) {
          while (r.next()) {
            String col = r.getString(1);
            cols.add(col);
            exprs.add(expr(col, r.getString(2), prefix, runId));
          }
        }
      }
      out.put(
          t,
          "INSERT INTO flows."
              + t
              + " ("
              + String.join(", ", cols)
              + ") SELECT "
              + String.join(", ", exprs)
              + " FROM flows."
              + t
              + " t, generate_series(CAST(? AS bigint), CAST(? AS bigint)) g"
              + " WHERE t.run_id = ?");
    }
    return out;
  }

  private static String expr(String col, String type, String prefix, String runId) {
    return switch (col) {
      case "run_id" -> runId;
      case "admission_key" -> "'" + prefix + "' || g";
      default ->
          type.startsWith("timestamp")
              ? "t." + col + " - g * interval '1 millisecond'"
              : "t." + col;
    };
  }

  /** The base tables of the flows schema with a {@code run_id} column, runs first. */
  private static List<String> tables(Connection c) throws Exception {
    List<String> out = new ArrayList<>();
    try (ResultSet r =
        c.createStatement()
            .executeQuery(
                "SELECT c.table_name FROM information_schema.columns c"
                    + " JOIN information_schema.tables t USING (table_schema, table_name)"
                    + " WHERE c.table_schema = 'flows' AND c.column_name = 'run_id'"
                    + " AND t.table_type = 'BASE TABLE'"
                    + " ORDER BY c.table_name <> 'runs', c.table_name")) {
      while (r.next()) {
        out.add(r.getString(1));
      }
    }
    return out;
  }
}
