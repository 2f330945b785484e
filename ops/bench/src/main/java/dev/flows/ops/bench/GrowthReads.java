package dev.flows.ops.bench;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.RunRef;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator's reads, timed: the statement {@code runs list} and the console's first page run
 * (root runs, newest 50, with their step counts and children; {@code ListRuns.rows} in ops/cli,
 * copied here because the bench does not depend on the CLI), the same with {@code --all}, and what
 * {@code runs show} reads through the journal (the run, its entries, its children).
 */
final class GrowthReads {
  /** {@code ListRuns.rows} with no filter; {@code %s} is the root-only condition or nothing. */
  static final String LIST =
      "SELECT o.run_id, o.name, o.status::text, o.parent_run_id, o.created_at,"
          + " o.completed_at, o.completion_reason::text, o.steps_total,"
          + " o.steps_succeeded, o.steps_running, o.steps_parked, o.steps_failed,"
          + " o.attempts_total, o.rerun_of, o.queue, o.waiting_reason,"
          + " (SELECT count(*) FROM flows.runs_overview c"
          + " WHERE c.parent_run_id = o.run_id)"
          + " FROM flows.runs_overview o WHERE NOT o.tombstone%s"
          + " ORDER BY o.created_at DESC, o.run_id LIMIT 50";

  static final String ROOTS = " AND o.parent_run_id IS NULL";

  private GrowthReads() {}

  static Map<String, Stats> times(String url, int samples) throws Exception {
    int n = Math.max(5, samples / 10);
    Map<String, Stats> out = new LinkedHashMap<>();
    try (Connection c = DriverManager.getConnection(url)) {
      out.put("runs list (console first page)", list(c, LIST.formatted(ROOTS), n));
      out.put("runs list --all", list(c, LIST.formatted(""), n));
    }
    RunRef shown = new RunRef(shownRun(url));
    List<Long> show = new ArrayList<>();
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
      for (int i = 0; i < n + 2; i++) {
        long t0 = System.nanoTime();
        journal.run(shown).orElseThrow();
        journal.entries(shown);
        journal.children(shown);
        if (i >= 2) {
          show.add(System.nanoTime() - t0);
        }
      }
    }
    out.put("runs show", Stats.of(show));
    return out;
  }

  /** The newest ended f.step run: one of this measurement's (the same shape on both journals). */
  static String shownRun(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT run_id FROM flows.runs WHERE name = 'bench-steps' AND status = 'succeeded'"
                    + " ORDER BY created_seq DESC LIMIT 1")) {
      try (ResultSet r = ps.executeQuery()) {
        r.next();
        return r.getString(1);
      }
    }
  }

  private static Stats list(Connection c, String sql, int n) throws Exception {
    List<Long> t = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < n + 2; i++) {
        long t0 = System.nanoTime();
        try (ResultSet r = ps.executeQuery()) {
          while (r.next()) {
            r.getString(1);
          }
        }
        if (i >= 2) {
          t.add(System.nanoTime() - t0);
        }
      }
    }
    return Stats.of(t);
  }

  /** The plans of the two list statements on the filled journal, for the report's notes. */
  static List<String> plans(String url) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url)) {
      for (String sql : List.of(LIST.formatted(ROOTS))) {
        StringBuilder p = new StringBuilder();
        try (ResultSet r =
            c.createStatement().executeQuery("EXPLAIN (ANALYZE, COSTS OFF) " + sql)) {
          while (r.next()) {
            p.append(r.getString(1)).append('\n');
          }
        }
        out.add(p.toString());
      }
    }
    return out;
  }
}
