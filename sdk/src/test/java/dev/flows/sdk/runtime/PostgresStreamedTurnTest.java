package dev.flows.sdk.runtime;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Journal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/** The same streamed turns on the Postgres journal: partial text in its unlogged table. */
class PostgresStreamedTurnTest extends StreamedTurnTest {
  private static final List<PostgresJournal> OPENED = new ArrayList<>();

  @Override
  protected Journal journal() {
    PostgresJournal journal =
        PostgresJournal.connect(
            JournalStoreConfig.forUrl(TestDatabase.fresh("streamed_turn").jdbcUrl()));
    OPENED.add(journal);
    return journal;
  }

  @AfterAll
  static void close() {
    OPENED.forEach(PostgresJournal::close);
  }
}
