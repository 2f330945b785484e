package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import java.util.HashMap;
import java.util.Map;

/**
 * Follows a run and its children through the journal, printing each new entry once (a progress
 * line, or a JSON line with {@code --json}). Used by {@code flows runs watch}; {@code flows run}
 * can use it to show progress while it waits.
 */
final class RunFollower {
  private final Session session;
  private final Journal journal;
  private final RunRef root;
  private final Map<RunRef, Long> seen = new HashMap<>();

  RunFollower(Session session, Journal journal, RunRef root) {
    this.session = session;
    this.journal = journal;
    this.root = root;
  }

  /** Prints what was journaled since the last call, for the root and every child run. */
  void printNew() {
    follow(root, 0);
  }

  /**
   * Prints progress until the run ends or parks (an operator must act then); answers its final
   * snapshot.
   */
  RunSnapshot untilSettled() throws InterruptedException {
    while (true) {
      // Read the status before the entries: a run that ended has all its entries by then.
      RunSnapshot now = RunsCommand.existing(journal, root);
      printNew();
      if (settled(now.status())) {
        return now;
      }
      Thread.sleep(session.config().watchPollInterval());
    }
  }

  static boolean settled(RunStatus status) {
    return status.terminal() || status == RunStatus.PARKED;
  }

  private void follow(RunRef run, int depth) {
    long last = seen.getOrDefault(run, Long.MIN_VALUE);
    for (JournalRecord rec : journal.entries(run)) {
      if (rec.seq() > last) {
        ObjectNode e = RunJson.entry(rec);
        String prefix = depth == 0 ? "" : "[" + run.value() + "] ";
        session.event(e, prefix + RunText.line(rec));
        last = rec.seq();
      }
    }
    seen.put(run, last);
    if (depth < RunJson.MAX_DEPTH) {
      for (RunRef child : journal.children(run)) {
        follow(child, depth + 1);
      }
    }
  }
}
