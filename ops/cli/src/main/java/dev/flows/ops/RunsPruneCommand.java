package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.PruneReport;
import dev.flows.kernel.journal.PruneRequest;
import dev.flows.kernel.journal.RunRef;
import dev.flows.worker.Pruner;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code flows runs prune}: retention, run by an operator. */
@Command(
    name = "prune",
    mixinStandardHelpOptions = true,
    description =
        "Remove ended runs older than the retention period, with their steps, effects and journal"
            + " entries: whole trees (a root run and its children), never a running, parked or"
            + " waiting run, nor a child whose root has not ended. Each batch writes an audit"
            + " record (flows.prunes, flows.pruned_runs).")
final class RunsPruneCommand implements Callable<Integer> {
  @Option(
      names = "--older-than",
      paramLabel = "DURATION",
      description = "Retention period: runs that ended longer ago go (default 30d).")
  String olderThan = "30d";

  @Option(
      names = "--pause",
      paramLabel = "DURATION",
      description =
          "Pause between batches, so that a live database's claims are not held up behind the"
              + " deletes (default 50ms, as a worker's --retention pruner; 0s: back to back).")
  String pause = Pruner.Config.DEFAULT_PAUSE.toMillis() + "ms";

  @Option(names = "--dry-run", description = "Say what would go; remove nothing.")
  boolean dryRun;

  @Option(
      names = "--batch",
      paramLabel = "N",
      description = "Root runs per transaction (default 100).")
  int batch = 100;

  private final Session s;

  RunsPruneCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() {
    Duration period = OptionValues.duration("--older-than", olderThan, "--older-than");
    Duration between = OptionValues.duration("--pause", pause, "--pause");
    String by = RunsCommand.operator();
    Journal journal = s.journal();
    if (dryRun) {
      return dryRun(journal, period, by);
    }
    PruneRequest req = new PruneRequest(period, OptionalInt.of(batch), by, false);
    int roots = 0;
    int runs = 0;
    long entries = 0;
    ArrayNode prunes = s.object().arrayNode();
    for (PruneReport r = journal.prune(req);
        !r.empty();
        r = pauseThenPrune(journal, req, between)) {
      roots += r.roots().size();
      runs += r.runs();
      entries += r.entries();
      r.pruneId().ifPresent(prunes::add);
      s.notice(
          "flows: pruned "
              + runs
              + " runs so far ("
              + roots
              + " roots, "
              + entries
              + " journal entries)");
    }
    ObjectNode out = summary(roots, runs, entries, false);
    out.set("pruneIds", prunes);
    int r = roots;
    int n = runs;
    long e = entries;
    s.emit(
        out,
        p ->
            p.println(
                "pruned "
                    + n
                    + " runs ("
                    + r
                    + " roots, "
                    + e
                    + " journal entries) that ended over "
                    + olderThan
                    + " ago"
                    + (prunes.isEmpty() ? "" : "; audit records " + prunes)));
    return Exit.SUCCESS;
  }

  /**
   * The next batch after {@code pause}; an interrupt (the process told to stop) ends the prune
   * between batches, as if nothing were left.
   */
  private static PruneReport pauseThenPrune(Journal journal, PruneRequest req, Duration pause) {
    try {
      Thread.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new PruneReport(Optional.empty(), List.of(), 0, 0, false);
    }
    return journal.prune(req);
  }

  /** What a prune would remove, removing nothing. */
  private int dryRun(Journal journal, Duration period, String by) {
    PruneReport r = journal.prune(new PruneRequest(period, OptionalInt.empty(), by, true));
    ObjectNode out = summary(r.roots().size(), r.runs(), r.entries(), true);
    ArrayNode roots = out.putArray("rootIds");
    r.roots().forEach(id -> roots.add(id.value()));
    s.emit(
        out,
        p -> {
          p.println(
              "would prune "
                  + r.runs()
                  + " runs ("
                  + r.roots().size()
                  + " roots, "
                  + r.entries()
                  + " journal entries) that ended over "
                  + olderThan
                  + " ago");
          r.roots().stream().limit(20).map(RunRef::value).forEach(id -> p.println("  " + id));
          if (r.roots().size() > 20) {
            p.println("  … and " + (r.roots().size() - 20) + " more roots");
          }
        });
    return Exit.SUCCESS;
  }

  private ObjectNode summary(int roots, int runs, long entries, boolean dry) {
    ObjectNode out = s.object();
    out.put("dryRun", dry)
        .put("olderThan", olderThan)
        .put("roots", roots)
        .put("runs", runs)
        .put("entries", entries);
    return out;
  }
}
