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

  /**
   * Each journal's read latencies, the journals taking turns call by call (in alternating order),
   * so a change of the machine's load hits every journal alike.
   */
  static List<Map<String, Stats>> paired(List<String> urls, int samples) throws Exception {
    int n = Math.max(5, samples / 10);
    List<Connection> cs = new ArrayList<>();
    List<PostgresJournal> journals = new ArrayList<>();
    try {
      List<List<Call>> calls = new ArrayList<>();
      for (String url : urls) {
        Connection c = DriverManager.getConnection(url);
        cs.add(c);
        PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        journals.add(journal);
        PreparedStatement first = c.prepareStatement(LIST.formatted(ROOTS));
        PreparedStatement all = c.prepareStatement(LIST.formatted(""));
        RunRef shown = new RunRef(shownRun(url));
        calls.add(
            List.of(
                () -> drain(first),
                () -> drain(all),
                () -> {
                  journal.run(shown).orElseThrow();
                  journal.entries(shown);
                  journal.children(shown);
                }));
      }
      return turns(calls, n);
    } finally {
      for (PostgresJournal j : journals) {
        j.close();
      }
      for (Connection c : cs) {
        c.close();
      }
    }
  }

  /** A read to time. */
  interface Call {
    void run() throws Exception;
  }

  private static List<Map<String, Stats>> turns(List<List<Call>> calls, int n) throws Exception {
    List<Map<String, List<Long>>> t = new ArrayList<>();
    calls.forEach(x -> t.add(new LinkedHashMap<>()));
    for (int i = 0; i < n + 2; i++) {
      for (int k = 0; k < calls.size(); k++) {
        int j = i % 2 == 0 ? k : calls.size() - 1 - k;
        for (int r = 0; r < READS.size(); r++) {
          long t0 = System.nanoTime();
          calls.get(j).get(r).run();
          if (i >= 2) {
            t.get(j)
                .computeIfAbsent(READS.get(r), x -> new ArrayList<>())
                .add(System.nanoTime() - t0);
          }
        }
      }
    }
    List<Map<String, Stats>> out = new ArrayList<>();
    for (Map<String, List<Long>> one : t) {
      Map<String, Stats> stats = new LinkedHashMap<>();
      one.forEach((k, v) -> stats.put(k, Stats.of(v)));
      out.add(stats);
    }
    return out;
  }

  /** The reads, in the order they are timed. */
  static final List<String> READS =
      List.of("runs list (console first page)", "runs list --all", "runs show");

  static void drain(PreparedStatement ps) throws Exception {
    try (ResultSet r = ps.executeQuery()) {
      while (r.next()) {
        r.getString(1);
      }
    }
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
