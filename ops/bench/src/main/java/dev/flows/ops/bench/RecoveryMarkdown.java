package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** Recovery: SIGKILL of a worker to the next attempt, per lease and reconcile interval. */
final class RecoveryMarkdown {
  private RecoveryMarkdown() {}

  static void render(Report results, StringBuilder md) {
    md.append("\n## Recovery: SIGKILL of a worker → the next attempt starts\n\n")
        .append(header("lease", "survivor's reconcile interval", "samples", "p50 s", "max s"));
    for (Report.Recovery r : results.recovery) {
      md.append(
          row(
              r.lease().toSeconds() + " s",
              r.reconcile().toSeconds()
                  + " s"
                  + (r.judged() ? " (default)" : " (shorter, not a default)"),
              String.valueOf(r.stats().sortedNanos().size()),
              f2(r.stats().p50() / 1000),
              f2(r.stats().ms(1.0) / 1000)));
    }
  }
}
