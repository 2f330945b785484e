package dev.flows.worker;

import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.RunStatus;
import java.util.List;

/** Reads what tests assert on out of a run's journal. */
public final class JournalChecks {
  private JournalChecks() {}

  public static List<JournalEntry.StepCompleted> completions(Journal journal, RunRef run) {
    return journal.entries(run).stream()
        .map(JournalRecord::entry)
        .filter(e -> e instanceof JournalEntry.StepCompleted)
        .map(e -> (JournalEntry.StepCompleted) e)
        .toList();
  }

  /** Whether every one of {@code runs} has succeeded (for await conditions). */
  public static boolean allSucceeded(Journal journal, List<RunRef> runs) {
    return runs.stream()
        .allMatch(r -> journal.run(r).orElseThrow().status() == RunStatus.SUCCEEDED);
  }

  public static long completionsWith(Journal journal, RunRef run, CompletionReason reason) {
    return completions(journal, run).stream().filter(c -> c.reason() == reason).count();
  }
}
