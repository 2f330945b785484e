package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.ManualClock;
import java.time.Instant;

/** Tool approval on the in-memory journal. */
class ToolApprovalTest extends ToolApprovalContract {
  private final InMemoryJournal journal =
      new InMemoryJournal(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")));

  @Override
  Journal journal() {
    return journal;
  }
}
