package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Follows a run and its children through the journal, printing each new entry once (a progress
 * line, or a JSON line with {@code --json}), the whole tree's new entries in the order they were
 * journaled, then the text its running model turns have streamed so far ({@link PartialLines}).
 * Used by {@code flows runs watch}, {@code flows run} and {@code flows demo}.
 */
final class RunFollower {
  private final Session session;
  private final Journal journal;
  private final RunRef root;
  private final boolean full;
  private final Map<RunRef, Long> seen = new HashMap<>();
  private final Map<RunRef, ProgressLines> lines = new HashMap<>();
  private final Map<RunRef, String> prefixes = new HashMap<>();
  private final PartialLines partials = new PartialLines();

  /** An entry read and not yet printed, with the run's prefix ({@code [child id] }). */
  private record Fresh(JournalRecord rec, String prefix) {}

  RunFollower(Session session, Journal journal, RunRef root, boolean full) {
    this.session = session;
    this.journal = journal;
    this.root = root;
    this.full = full;
  }

  RunFollower(Session session, Journal journal, RunRef root) {
    this(session, journal, root, false);
  }

  /**
   * Prints what was journaled since the last call, for the root and every child run, in time order
   * (a parent's end after its children's lines).
   */
  void printNew() {
    List<Fresh> fresh = new ArrayList<>();
    collect(root, 0, fresh);
    // Stable: entries of one instant keep their run's order.
    fresh.sort(Comparator.comparing(f -> f.rec().at()));
    for (Fresh f : fresh) {
      ObjectNode e = RunJson.entry(f.rec());
      RunRef run = f.rec().entry().runId();
      session.event(e, f.prefix() + lines.get(run).line(f.rec()));
    }
    // The running turns' text, live, never journaled.
    prefixes.forEach(
        (run, prefix) -> partials.printNew(session, journal, run, prefix, lines.get(run)::label));
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

  private void collect(RunRef run, int depth, List<Fresh> into) {
    long last = seen.getOrDefault(run, Long.MIN_VALUE);
    String prefix = depth == 0 ? "" : "[" + run.value() + "] ";
    for (JournalRecord rec : journal.entries(run)) {
      if (rec.seq() > last) {
        lines.computeIfAbsent(run, this::linesOf);
        into.add(new Fresh(rec, prefix));
        last = rec.seq();
      }
    }
    seen.put(run, last);
    if (lines.containsKey(run)) {
      prefixes.put(run, prefix);
    }
    if (depth < RunJson.MAX_DEPTH) {
      for (RunRef child : journal.children(run)) {
        collect(child, depth + 1, into);
      }
    }
  }

  /** The progress lines of {@code run}, its steps labelled from its spec (read once). */
  private ProgressLines linesOf(RunRef run) {
    com.fasterxml.jackson.databind.JsonNode spec =
        journal.run(run).map(RunSnapshot::spec).orElse(Session.JSON.createObjectNode());
    return new ProgressLines(stepId -> StepLabel.of(spec, stepId), full);
  }
}
