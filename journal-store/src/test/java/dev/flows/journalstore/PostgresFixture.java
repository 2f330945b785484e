package dev.flows.journalstore;

import dev.flows.journalstore.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;

/** A PostgresJournal over a fresh database of its own, with the test-sized pool. */
record PostgresFixture(TestDatabase.Fresh db, PostgresJournal journal) implements AutoCloseable {
  static final int POOL_SIZE = 6;

  static PostgresFixture create(String label) {
    return create(label, JournalStoreConfig.GroupCommitLimits.DEFAULTS);
  }

  static PostgresFixture create(String label, JournalStoreConfig.GroupCommitLimits groupCommit) {
    TestDatabase.Fresh db = TestDatabase.fresh(label);
    return new PostgresFixture(db, PostgresJournal.connect(config(db, groupCommit)));
  }

  /** A journal judged by {@code clock} instead of the database clock: time moves when told. */
  static PostgresFixture create(String label, InstantSource clock) {
    TestDatabase.Fresh db = TestDatabase.fresh(label);
    return new PostgresFixture(
        db,
        PostgresJournal.connect(config(db, JournalStoreConfig.GroupCommitLimits.DEFAULTS), clock));
  }

  /**
   * As {@link #create(String, InstantSource)}, the journal taking payloads within {@code limits}.
   */
  static PostgresFixture create(
      String label, InstantSource clock, dev.flows.kernel.journal.PayloadLimits limits) {
    TestDatabase.Fresh db = TestDatabase.fresh(label);
    JournalStoreConfig config =
        config(db, JournalStoreConfig.GroupCommitLimits.DEFAULTS).withPayloadLimits(limits);
    return new PostgresFixture(db, PostgresJournal.connect(config, clock));
  }

  static JournalStoreConfig config(
      TestDatabase.Fresh db, JournalStoreConfig.GroupCommitLimits groupCommit) {
    return new JournalStoreConfig(
        db.jdbcUrl(),
        java.util.Optional.empty(),
        java.util.Optional.empty(),
        POOL_SIZE,
        JournalStoreConfig.DEFAULT_CONNECTION_TIMEOUT,
        Duration.ofMillis(100),
        Duration.ofMillis(200),
        JournalStoreConfig.DEFAULT_EXPIRY_BATCH_SIZE,
        groupCommit);
  }

  /** Runs a statement directly, bypassing the journal (to prove what the database refuses). */
  void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  long count(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Every row of {@code sql}, each column as text. */
  java.util.List<java.util.List<String>> rows(String sql) throws SQLException {
    java.util.List<java.util.List<String>> out = new java.util.ArrayList<>();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        java.util.List<String> row = new java.util.ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(rs.getString(i));
        }
        out.add(row);
      }
    }
    return out;
  }

  @Override
  public void close() {
    journal.close();
  }
}
