package dev.flows.sdk.runtime;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Journal;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Tool approval on the Postgres journal. */
class PostgresToolApprovalTest extends ToolApprovalContract {
  private static PostgresJournal journal;

  @BeforeAll
  static void db() {
    journal =
        PostgresJournal.connect(
            JournalStoreConfig.forUrl(TestDatabase.fresh("approval").jdbcUrl()));
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  @Override
  Journal journal() {
    return journal;
  }
}
