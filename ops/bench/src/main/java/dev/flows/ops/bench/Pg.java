package dev.flows.ops.bench;

import dev.flows.migrations.Migrations;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The Postgres server under test: a fresh database per section (so leftovers of one section never
 * feed the next), its settings, and the two commit counters.
 */
final class Pg {
  static final List<String> SETTINGS =
      List.of(
          "fsync",
          "synchronous_commit",
          "wal_sync_method",
          "full_page_writes",
          "shared_buffers",
          "max_connections",
          "commit_delay");

  private final String adminUrl;

  /** {@code adminUrl}: a JDBC URL whose database may create and drop others. */
  Pg(String adminUrl) {
    this.adminUrl = adminUrl;
  }

  Connection admin() throws SQLException {
    return DriverManager.getConnection(adminUrl);
  }

  /** A new, empty, migrated database; answers its JDBC URL. */
  String fresh(String name, boolean migrate) throws SQLException {
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      s.execute("CREATE DATABASE " + name);
    }
    String url = urlOf(name);
    if (migrate) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setURL(url);
      Migrations.of(ds).migrate();
    }
    return url;
  }

  void drop(String name) throws SQLException {
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }

  String urlOf(String database) {
    int q = adminUrl.indexOf('?');
    String base = q < 0 ? adminUrl : adminUrl.substring(0, q);
    String params = q < 0 ? "" : adminUrl.substring(q);
    return base.substring(0, base.lastIndexOf('/') + 1) + database + params;
  }

  Map<String, String> settings() throws SQLException {
    Map<String, String> out = new LinkedHashMap<>();
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      try (ResultSet r = s.executeQuery("SELECT version()")) {
        r.next();
        out.put("version", r.getString(1));
      }
      for (String name : SETTINGS) {
        try (ResultSet r = s.executeQuery("SHOW " + name)) {
          r.next();
          out.put(name, r.getString(1));
        }
      }
    }
    return out;
  }

  /**
   * Transactions committed in a database ({@code pg_stat_database.xact_commit}, reads included) and
   * transaction ids handed out (write transactions only: each one flushes WAL at commit).
   */
  record Counters(long commits, long writes) {
    Counters minus(Counters o) {
      return new Counters(commits - o.commits, writes - o.writes);
    }
  }

  /**
   * Reads both counters on a fresh connection that then exits, so its own statistics are flushed at
   * once. Other backends flush theirs at most once a second while busy; callers close the pools
   * they measure (backends flush at exit) or measure over windows much longer than a second.
   */
  Counters counters(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),"
                    + " pg_snapshot_xmax(pg_current_snapshot())::text::bigint")) {
      r.next();
      return new Counters(r.getLong(1), r.getLong(2));
    }
  }

  /** Waits out the statistics flush of backends that just exited. */
  static void settleStats() throws InterruptedException {
    Thread.sleep(1_500);
  }

  /**
   * Waits out the statistics flush of backends that stay connected: a busy backend flushes at most
   * once a second, an idle one only after 10 s (PGSTAT_IDLE_INTERVAL), so counts made by a pool
   * that just went quiet arrive that late.
   */
  static void settleIdleStats() throws InterruptedException {
    Thread.sleep(11_000);
  }
}
