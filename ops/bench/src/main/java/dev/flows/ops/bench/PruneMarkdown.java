package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

import java.util.List;

/** Retention under load: claim latency in windows without and while pruning, alternating. */
final class PruneMarkdown {
  private PruneMarkdown() {}

  static void render(Report results, StringBuilder md) {
    results.prune.ifPresent(r -> render(r, md));
  }

  private static void render(PruneBench.Result r, StringBuilder md) {
    md.append("\n## Retention under load\n\n")
        .append(
            "A database holding "
                + f0(r.runs())
                + " runs that ended 40 days ago, with "
                + f0(r.entries())
                + " journal entries; "
                + PruneBench.PROBE_THREADS
                + " threads each admit a one-step run, claim (timed) and complete it, in"
                + " alternating windows without pruning and while `flows runs prune` (30 days, "
                + PruneBench.BATCH
                + " roots per transaction, "
                + (r.pause().isPositive()
                    ? r.pause().toMillis() + " ms between batches"
                    : "batches back to back")
                + ") runs, until it removed every old"
                + " run. The p99 of each window is given as min / median / max over the phase's"
                + " windows.\n\n")
        .append(
            header(
                "phase",
                "windows",
                "claims",
                "claim p50 ms",
                "claim p99 ms",
                "window p99 ms min / median / max"))
        .append(phase("without pruning", r.phase(false), r.without()))
        .append(phase("while pruning", r.phase(true), r.during()))
        .append("\nClaim p99 while pruning ")
        .append(f2(r.p99Ratio()))
        .append("× the one without");
    List<Double> paired = r.pairedP99Ratios();
    if (!paired.isEmpty()) {
      md.append("; window by window (each pruning window over the window without before it) ")
          .append(spread(paired))
          .append(" (min / median / max of ")
          .append(paired.size())
          .append(paired.size() == 1 ? " pair)" : " pairs)");
    }
    md.append(". Pruned ")
        .append(f0(r.prunedRuns()))
        .append(" runs and ")
        .append(f0(r.prunedEntries()))
        .append(" entries in ")
        .append(f1(r.pruneSeconds()))
        .append(" s of batches (")
        .append(f0(r.prunedRuns() / r.pruneSeconds()))
        .append(" runs/s, ")
        .append(f0(r.prunedEntries() / r.pruneSeconds()))
        .append(" entries/s).\n");
  }

  private static String phase(String name, List<Stats> windows, Stats pooled) {
    List<Double> p99s = windows.stream().filter(s -> !s.empty()).map(Stats::p99).sorted().toList();
    return row(
        name,
        f0(windows.size()),
        f0(pooled.sortedNanos().size()),
        f2(pooled.p50()),
        f2(pooled.p99()),
        p99s.isEmpty() ? "–" : spread(p99s));
  }

  /** Min / median / max of sorted values. */
  private static String spread(List<Double> sorted) {
    return f2(sorted.get(0))
        + " / "
        + f2(sorted.get(sorted.size() / 2))
        + " / "
        + f2(sorted.get(sorted.size() - 1));
  }
}
