package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** Retention under load: claim latency without and while pruning (a run that measured it). */
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
                + " threads each admit a one-step run, claim (timed) and complete it, first"
                + " without pruning, then while `flows runs prune` (30 days, "
                + PruneBench.BATCH
                + " roots per transaction, batches back to back) removes every old run.\n\n")
        .append(header("phase", "claims", "claim p50 ms", "claim p99 ms"))
        .append(
            row(
                "without pruning",
                f0(r.without().sortedNanos().size()),
                f2(r.without().p50()),
                f2(r.without().p99())))
        .append(
            row(
                "while pruning",
                f0(r.during().sortedNanos().size()),
                f2(r.during().p50()),
                f2(r.during().p99())))
        .append("\nPruned ")
        .append(f0(r.prunedRuns()))
        .append(" runs and ")
        .append(f0(r.prunedEntries()))
        .append(" entries in ")
        .append(f1(r.pruneSeconds()))
        .append(" s (")
        .append(f0(r.prunedRuns() / r.pruneSeconds()))
        .append(" runs/s, ")
        .append(f0(r.prunedEntries() / r.pruneSeconds()))
        .append(" entries/s).\n");
  }
}
