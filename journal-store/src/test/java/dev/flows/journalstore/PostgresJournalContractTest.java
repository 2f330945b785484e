package dev.flows.journalstore;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalContract;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.lifecycle.TransitionLog;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;

/**
 * The kernel's journal contract, against Postgres: a fresh database per test, its statements judged
 * by a test clock that the suite advances (the database clock is the production case, which
 * PostgresJournalTest covers).
 */
class PostgresJournalContractTest extends JournalContract {
  private PostgresFixture fixture;
  private ManualClock clock;

  @Override
  protected Journal newJournal() {
    clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    fixture = PostgresFixture.create("contract", clock);
    return fixture.journal();
  }

  @Override
  protected Journal newJournal(PayloadLimits limits) {
    fixture.close();
    fixture = PostgresFixture.create("contract", clock, limits);
    return fixture.journal();
  }

  @Override
  protected TransitionLog transitions(Journal journal) {
    return ((PostgresJournal) journal).transitions();
  }

  @Override
  protected void elapse(Duration d) {
    clock.advance(d);
  }

  @AfterEach
  void closeJournal() {
    fixture.close();
  }
}
