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
 * checked.
 */
final class GrowthFill {
  /** Copies per statement (one transaction each). */
  static final int BATCH = 50_000;

  private GrowthFill() {}

  /** Writes {@code copies} copies of run {@code template}, ids {@code prefix1..prefixN}. */
  static void copies(String url, String template, String prefix, long copies) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("SET session_replication_role = replica");
      Map<String, String> inserts = inserts(c, prefix);
      for (long from = 1; from <= copies; from += BATCH) {
        long to = Math.min(copies, from + BATCH - 1);
        for (Map.Entry<String, String> t : inserts.entrySet()) {
          try (PreparedStatement ps = c.prepareStatement(t.getValue())) {
            ps.setLong(1, from);
            ps.setLong(2, to);
            ps.setString(3, template);
            ps.executeUpdate();
          }
        }
        if (to % 1_000_000 == 0) {
          log("  " + prefix + " " + to + " of " + copies);
        }
      }
      s.execute("SET session_replication_role = DEFAULT");
    }
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
  private static Map<String, String> inserts(Connection c, String prefix) throws Exception {
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
            exprs.add(expr(col, r.getString(2), prefix));
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

  private static String expr(String col, String type, String prefix) {
    return switch (col) {
      case "run_id", "admission_key" -> "'" + prefix + "' || g";
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
