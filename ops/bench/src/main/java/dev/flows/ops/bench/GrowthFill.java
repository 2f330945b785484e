package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

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
    try (Connection c = connect(url);
        Statement s = c.createStatement()) {
      // The first copies of each template go in with the indexes in place: what the database
      // grew by over them, indexes included, is the per-copy size the preflight projects from.
      List<Long> bytesPerCopy = new ArrayList<>();
      for (Copies copies : all) {
        long probe = Math.min(PROBE, copies.count());
        long before = databaseBytes(c);
        write(url, copies, 1, probe, 1);
        bytesPerCopy.add(probe == 0 ? 0 : (databaseBytes(c) - before) / probe);
      }
      preflight(c, all, bytesPerCopy);
      List<String> indexes = secondaryIndexes(c);
      for (String index : indexes) {
        s.execute("DROP INDEX flows." + index.substring(0, index.indexOf(' ')));
      }
      long t0 = System.nanoTime();
      long copied = 0;
      for (Copies copies : all) {
        log("  copying " + copies.count() + " of " + copies.template() + " as " + copies.prefix());
        write(url, copies, Math.min(PROBE, copies.count()) + 1, copies.count(), STREAMS);
        copied += Math.max(0, copies.count() - PROBE);
      }
      long copyNanos = System.nanoTime() - t0;
      long t1 = System.nanoTime();
      s.execute("SET maintenance_work_mem = '1GB'");
      for (String index : indexes) {
        s.execute(index.substring(index.indexOf(' ') + 1));
      }
      log(
          String.format(
              "  %,d runs copied in %,d s (%.1f s per million), %d indexes built in %,d s",
              copied,
              copyNanos / 1_000_000_000,
              copied == 0 ? 0 : copyNanos / 1e3 / copied,
              indexes.size(),
              (System.nanoTime() - t1) / 1_000_000_000));
    }
  }

  /** Copies per template written with the indexes in place, to measure a copy's size. */
  static final int PROBE = 10_000;

  /** Connections copying at once: the fill is CPU-bound on generating and logging rows. */
  static final int STREAMS = 2;

  private static Connection connect(String url) throws Exception {
    Connection c = DriverManager.getConnection(url);
    try (Statement s = c.createStatement()) {
      s.execute("SET session_replication_role = replica");
    }
    return c;
  }

  private static long databaseBytes(Connection c) throws Exception {
    try (ResultSet r =
        c.createStatement().executeQuery("SELECT pg_database_size(current_database())")) {
      r.next();
      return r.getLong(1);
    }
  }

  /**
   * Refuses a fill the server's disk cannot hold ({@link DiskPreflight}) before it fills the disk,
   * when the server's data directory is on this machine.
   */
  private static void preflight(Connection c, List<Copies> all, List<Long> bytesPerCopy)
      throws Exception {
    Optional<Path> dir = dataDirectory(c);
    if (dir.isEmpty()) {
      log("  disk preflight skipped: the server's data directory is not on this machine");
      return;
    }
    long toWrite = 0;
    long runs = 0;
    for (int i = 0; i < all.size(); i++) {
      toWrite += Math.max(0, all.get(i).count() - PROBE) * bytesPerCopy.get(i);
      runs += all.get(i).count();
    }
    long perRun = runs == 0 ? 0 : (toWrite + databaseBytes(c)) / runs;
    DiskPreflight plan =
        new DiskPreflight(
            toWrite, walBytes(c), Files.getFileStore(dir.get()).getUsableSpace(), runs, perRun);
    log(
        String.format(
            "  disk preflight: %,d bytes per run of the mix (first copies, indexes included);"
                + " %.1f GB still to write with WAL and index-build room, %.1f GB free on %s",
            perRun, plan.need() / 1e9, plan.free() / 1e9, dir.get()));
    Optional<String> refusal = plan.refusal(dir.get().toString());
    if (refusal.isPresent()) {
      throw new NoRoom(refusal.get());
    }
  }

  /** A fill refused before it starts: one line saying why and what to do. */
  static final class NoRoom extends IllegalStateException {
    NoRoom(String message) {
      super(message);
    }
  }

  /** The server's data directory, if it is a directory on this machine. */
  private static Optional<Path> dataDirectory(Connection c) {
    try (ResultSet r = c.createStatement().executeQuery("SHOW data_directory")) {
      r.next();
      Path p = Path.of(r.getString(1));
      return Files.isDirectory(p) ? Optional.of(p) : Optional.empty();
    } catch (Exception e) {
      // Only a superuser may read the setting; without it there is nothing to check against.
      return Optional.empty();
    }
  }

  private static long walBytes(Connection c) throws Exception {
    try (ResultSet r =
        c.createStatement()
            .executeQuery(
                "SELECT setting::bigint * 1024 * 1024 FROM pg_settings WHERE name = 'max_wal_size'")) {
      r.next();
      return r.getLong(1);
    }
  }

  /**
   * Copies {@code from..to} of {@code copies}, in batches of {@link #BATCH} shared out to {@code
   * streams} connections.
   */
  private static void write(String url, Copies copies, long from, long to, int streams)
      throws Exception {
    if (from > to) {
      return;
    }
    AtomicLong next = new AtomicLong(from);
    AtomicLong done = new AtomicLong();
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(streams);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < streams; i++) {
        running.add(
            pool.submit(
                () -> {
                  try (Connection c = connect(url)) {
                    templateRows(c, copies.template());
                    Map<String, String> inserts = inserts(c, copies.prefix(), idOf(c, copies));
                    for (long a = next.getAndAdd(BATCH); a <= to; a = next.getAndAdd(BATCH)) {
                      long b = Math.min(to, a + BATCH - 1);
                      for (String sql : inserts.values()) {
                        try (PreparedStatement ps = c.prepareStatement(sql)) {
                          ps.setLong(1, a);
                          ps.setLong(2, b);
                          ps.setString(3, copies.template());
                          ps.executeUpdate();
                        }
                      }
                      long n = done.addAndGet(b - a + 1);
                      if (n / 1_000_000 != (n - (b - a + 1)) / 1_000_000) {
                        log(
                            String.format(
                                "  %s %,d of %,d (%.1f s per million)",
                                copies.prefix(),
                                n + from - 1,
                                copies.count(),
                                (System.nanoTime() - t0) / 1e3 / n));
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
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
    long t0 = System.nanoTime();
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      for (String t : tables(c)) {
        s.execute("VACUUM ANALYZE flows." + t);
      }
    }
    log("  vacuumed and analyzed in " + (System.nanoTime() - t0) / 1_000_000_000 + " s");
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

  /**
   * The template's rows of every run table, in temporary tables of this connection the copies are
   * made from: with the secondary indexes dropped, finding them in the journal itself is a scan of
   * every entry copied so far, once per batch.
   */
  private static void templateRows(Connection c, String template) throws Exception {
    if (!template.matches("[A-Za-z0-9_.:-]+")) {
      throw new IllegalArgumentException("a template is a run id, not " + template);
    }
    try (Statement s = c.createStatement()) {
      for (String t : tables(c)) {
        s.execute(
            "CREATE TEMP TABLE template_"
                + t
                + " AS SELECT * FROM flows."
                + t
                + " WHERE run_id = '"
                + template
                + "'");
      }
    }
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
              + " FROM pg_temp.template_"
              + t
              + " t, (SELECT g, "
              + runId
              + " AS id FROM generate_series(CAST(? AS bigint), CAST(? AS bigint)) g"
              // OFFSET 0 keeps the subquery apart, so a copy's id is made once, not once per row.
              + " OFFSET 0) s"
              + " WHERE t.run_id = ?");
    }
    return out;
  }

  private static String expr(String col, String type, String prefix, String runId) {
    return switch (col) {
      case "run_id" -> "s.id";
      case "admission_key" -> "'" + prefix + "' || s.g";
      default ->
          type.startsWith("timestamp")
              ? "t." + col + " - s.g * interval '1 millisecond'"
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
