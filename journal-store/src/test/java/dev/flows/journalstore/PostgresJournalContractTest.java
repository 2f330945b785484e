package dev.flows.journalstore;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;

/** The kernel's journal contract, against Postgres: a fresh database per test, real time. */
class PostgresJournalContractTest extends JournalContract {
  private PostgresFixture fixture;

  @Override
  protected Journal newJournal() {
    fixture = PostgresFixture.create("contract");
    return fixture.journal();
  }

  @Override
  protected void elapse(Duration d) {
    // The database clock cannot be moved: let the time pass.
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while letting time pass", e);
    }
  }

  /** Real time on a shared machine: leave room for a verb to land inside the lease. */
  @Override
  protected Duration shortLease() {
    return Duration.ofMillis(1_000);
  }

  @AfterEach
  void closeJournal() {
    fixture.close();
  }
}
