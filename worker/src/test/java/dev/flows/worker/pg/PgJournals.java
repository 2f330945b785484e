package dev.flows.worker.pg;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** A Postgres journal on a fresh test database, and SQL from a connection of the test's own. */
final class PgJournals {
  private PgJournals() {}

  static TestDatabase.Fresh fresh(Class<?> testClass) {
    return TestDatabase.fresh(testClass.getSimpleName());
  }

  static PostgresJournal journal(TestDatabase.Fresh db) {
    return PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()));
  }

  /** Runs {@code sql} with {@code args} on a new connection; answers the update count. */
  static int execute(String jdbcUrl, String sql, Object... args) {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        PreparedStatement st = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        st.setObject(i + 1, args[i]);
      }
      if (st.execute()) {
        int rows = 0;
        try (var rs = st.getResultSet()) {
          while (rs.next()) {
            rows++;
          }
        }
        return rows;
      }
      return st.getUpdateCount();
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }
}
