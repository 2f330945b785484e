package dev.flows.sdk.runtime;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Journal;
import org.junit.jupiter.api.AfterAll;

/** The same {@code llm} step on the Postgres journal. */
class PostgresLlmStepEngineTest extends LlmStepEngineTest {
  private static PostgresJournal journal;

  @Override
  protected Journal journal() {
    journal =
        PostgresJournal.connect(
            JournalStoreConfig.forUrl(TestDatabase.fresh("llm_step").jdbcUrl()));
    return journal;
  }

  @AfterAll
  static void close() {
    if (journal != null) {
      journal.close();
    }
  }
}
