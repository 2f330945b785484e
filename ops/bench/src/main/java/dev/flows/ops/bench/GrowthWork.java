package dev.flows.ops.bench;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.RunRef;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the database does per journal verb, counted by {@code pg_stat_statements} (the bench's
 * Postgres loads it; this turns it on in the measured database, nested statements too): shared
 * buffers hit and read, buffers dirtied and WAL bytes per call, summed over the top-level
 * statements of the verb's database, read from another database between the calls. Unlike a time
 * these counts do not depend on the machine's load: a verb whose buffers per call rise with the
 * journal does more work on a bigger journal.
 */
final class GrowthWork {
  /** Calls per verb counted (after a tenth unmeasured). */
  static final int CALLS = 100;

  /** The counters per call, in this order. */
  static final List<String> COUNTERS =
      List.of("buffers hit", "buffers read", "buffers dirtied", "WAL bytes");

  /** Statements listed by their growth in buffers per call. */
  static final int TOP_STATEMENTS = 8;

  /** Per verb the counters per call; per statement (its text) buffers (hit + read) per call. */
  record Work(Map<String, double[]> verbs, Map<String, Double> statements) {}

  private GrowthWork() {}

  /** The work of {@code db}'s verbs, or empty where the server does not load the extension. */
  static Optional<Work> measure(Pg pg, String db) throws Exception {
    try (Connection monitor = pg.admin()) {
      if (!available(monitor)) {
        return Optional.empty();
      }
      long dbid = dbid(monitor, db);
      try (Statement s = monitor.createStatement()) {
        // Counted in this database only (new connections), nested statements too.
        s.execute("ALTER DATABASE " + db + " SET pg_stat_statements.track = 'all'");
      }
      try (PreparedStatement reset =
          monitor.prepareStatement("SELECT pg_stat_statements_reset(0, ?, 0)")) {
        reset.setLong(1, dbid);
        reset.execute();
      }
      Map<String, double[]> verbs = new LinkedHashMap<>();
      try (PreparedStatement read =
              monitor.prepareStatement(
                  "SELECT coalesce(sum(shared_blks_hit), 0), coalesce(sum(shared_blks_read), 0),"
                      + " coalesce(sum(shared_blks_dirtied), 0), coalesce(sum(wal_bytes), 0)"
                      + " FROM pg_stat_statements(false) WHERE dbid = ? AND toplevel");
          PostgresJournal journal =
              PostgresJournal.connect(JournalStoreConfig.forUrl(pg.urlOf(db)))) {
        read.setLong(1, dbid);
        Supplier<long[]> meter = () -> counters(read);
        GrowthProbe.verbs(List.of(journal), CALLS, meter)
            .get(0)
            .forEach((verb, calls) -> verbs.put(verb, perCall(calls)));
        reads(pg.urlOf(db), journal, meter, verbs);
      }
      return Optional.of(new Work(verbs, statements(monitor, dbid)));
    }
  }

  /**
   * The statements whose buffers per call grew most from {@code empty} to {@code filled}, each with
   * both figures.
   */
  static List<String[]> grown(Work empty, Work filled) {
    List<String[]> out = new ArrayList<>();
    filled.statements().entrySet().stream()
        .filter(e -> empty.statements().containsKey(e.getKey()))
        .sorted(
            (a, b) ->
                Double.compare(
                    b.getValue() - empty.statements().get(b.getKey()),
                    a.getValue() - empty.statements().get(a.getKey())))
        .limit(TOP_STATEMENTS)
        .forEach(
            e ->
                out.add(
                    new String[] {
                      e.getKey(),
                      Tables.f1(empty.statements().get(e.getKey())),
                      Tables.f1(e.getValue())
                    }));
    return out;
  }

  /** The operator's reads ({@link GrowthReads}), each {@value #READS} times. */
  private static void reads(
      String url, PostgresJournal journal, Supplier<long[]> meter, Map<String, double[]> out)
      throws Exception {
    RunRef shown = new RunRef(GrowthReads.shownRun(url));
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement first =
            c.prepareStatement(GrowthReads.LIST.formatted(GrowthReads.ROOTS));
        PreparedStatement all = c.prepareStatement(GrowthReads.LIST.formatted(""))) {
      out.put(
          "runs list (console first page)", perCall(repeat(meter, () -> GrowthReads.drain(first))));
      out.put("runs list --all", perCall(repeat(meter, () -> GrowthReads.drain(all))));
    }
    out.put(
        "runs show",
        perCall(
            repeat(
                meter,
                () -> {
                  journal.run(shown).orElseThrow();
                  journal.entries(shown);
                  journal.children(shown);
                })));
  }

  /** Reads to count per call. */
  static final int READS = 20;

  private static List<long[]> repeat(Supplier<long[]> meter, GrowthReads.Call call)
      throws Exception {
    List<long[]> out = new ArrayList<>();
    call.run();
    for (int i = 0; i < READS; i++) {
      long[] before = meter.get();
      call.run();
      long[] after = meter.get();
      long[] d = new long[after.length];
      for (int k = 0; k < d.length; k++) {
        d[k] = after[k] - before[k];
      }
      out.add(d);
    }
    return out;
  }

  private static boolean available(Connection monitor) {
    try (Statement s = monitor.createStatement()) {
      s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      s.executeQuery("SELECT count(*) FROM pg_stat_statements(false)").close();
      return true;
    } catch (SQLException notLoaded) {
      return false;
    }
  }

  private static long dbid(Connection monitor, String db) throws SQLException {
    try (PreparedStatement ps =
        monitor.prepareStatement("SELECT oid FROM pg_database WHERE datname = ?")) {
      ps.setString(1, db);
      try (ResultSet r = ps.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  private static long[] counters(PreparedStatement read) {
    try (ResultSet r = read.executeQuery()) {
      r.next();
      long[] out = new long[COUNTERS.size()];
      for (int k = 0; k < out.length; k++) {
        out[k] = r.getLong(k + 1);
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("reading pg_stat_statements failed", e);
    }
  }

  private static double[] perCall(List<long[]> calls) {
    double[] out = new double[COUNTERS.size()];
    for (long[] c : calls) {
      for (int k = 0; k < out.length; k++) {
        out[k] += (double) c[k] / calls.size();
      }
    }
    return out;
  }

  /** Every statement the verbs ran (nested ones too), by text: buffers hit + read per call. */
  private static Map<String, Double> statements(Connection monitor, long dbid) throws SQLException {
    Map<String, Double> out = new LinkedHashMap<>();
    try (PreparedStatement ps =
        monitor.prepareStatement(
            "SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90)"
                + " || CASE WHEN toplevel THEN '' ELSE ' (nested)' END,"
                + " sum(shared_blks_hit + shared_blks_read)::float8 / sum(calls)"
                + " FROM pg_stat_statements WHERE dbid = ? AND calls >= ?"
                + " GROUP BY 1")) {
      ps.setLong(1, dbid);
      ps.setLong(2, READS);
      try (ResultSet r = ps.executeQuery()) {
        while (r.next()) {
          out.put(r.getString(1), r.getDouble(2));
        }
      }
    }
    return out;
  }
}
