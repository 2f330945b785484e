package dev.flows.sdk.runtime;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Journal;
import org.junit.jupiter.api.AfterAll;

/** The cases of {@link PatchesAndReplayCheckTest} on the Postgres journal. */
class PostgresPatchesAndReplayCheckTest extends PatchesAndReplayCheckTest {
  private static PostgresJournal shared;

  @Override
  Journal journal() {
    synchronized (PostgresPatchesAndReplayCheckTest.class) {
      if (shared == null) {
        shared =
            PostgresJournal.connect(
                JournalStoreConfig.forUrl(TestDatabase.fresh("patches").jdbcUrl()));
      }
      return shared;
    }
  }

  @AfterAll
  static void close() {
    if (shared != null) {
      shared.close();
    }
  }
}
