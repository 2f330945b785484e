package dev.flows.kernel.journal;

import dev.flows.kernel.lifecycle.TransitionLog;
import java.time.Duration;
import java.time.Instant;

class InMemoryJournalContractTest extends JournalContract {
  private ManualClock clock;

  @Override
  protected Journal newJournal() {
    clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    return new InMemoryJournal(clock);
  }

  @Override
  protected Journal newJournal(PayloadLimits limits) {
    return new InMemoryJournal(clock, limits);
  }

  @Override
  protected TransitionLog transitions(Journal journal) {
    return ((InMemoryJournal) journal).transitions();
  }

  @Override
  protected void elapse(Duration d) {
    clock.advance(d);
  }
}
