package dev.flows.worker.mcp;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The journal a worker-level hostile-peer test runs on: in memory, or Postgres on a fresh database
 * of its own (the server runs outside the test JVM, so the JVM's small heap bound still holds).
 */
enum HostileJournal {
  IN_MEMORY,
  POSTGRES;

  /** A journal of this kind, empty. */
  Opened open(String label) {
    return switch (this) {
      case IN_MEMORY -> new Opened(new InMemoryJournal(Clock.systemUTC()), "");
      case POSTGRES -> {
        TestDatabase.Fresh db = TestDatabase.fresh(label);
        yield new Opened(
            PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl())), db.jdbcUrl());
      }
    };
  }

  /**
   * Starts the database server (once per JVM) before a class's processes are counted ({@code
   * NoProcessLeftBehind}, registered after this), so a server started on a test's first Postgres
   * journal is not taken for a process the test left behind.
   */
  static final class ServerFirst implements BeforeAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
      TestDatabase.serverKind();
    }
  }

  /** An open journal; {@code jdbcUrl} is empty in memory. */
  record Opened(Journal journal, String jdbcUrl) implements AutoCloseable {
    /**
     * The most bytes one stored thing of {@code run} holds: in memory, its entries' text whole; on
     * Postgres, the largest row (as text) of any table of the schema, so an answer kept anywhere
     * shows.
     */
    long largestStoredBytes(RunRef run) {
      if (jdbcUrl.isEmpty()) {
        return String.valueOf(journal.entries(run)).length();
      }
      try (Connection c = DriverManager.getConnection(jdbcUrl);
          Statement st = c.createStatement()) {
        List<String> tables = new ArrayList<>();
        try (ResultSet rs =
            st.executeQuery(
                "SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = 'flows' AND table_type = 'BASE TABLE'")) {
          while (rs.next()) {
            tables.add(rs.getString(1));
          }
        }
        long largest = 0;
        for (String t : tables) {
          try (ResultSet rs =
              st.executeQuery(
                  "SELECT coalesce(max(octet_length(t::text)), 0) FROM flows.\"" + t + "\" t")) {
            rs.next();
            largest = Math.max(largest, rs.getLong(1));
          }
        }
        return largest;
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      if (journal instanceof AutoCloseable a) {
        try {
          a.close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }
}
