package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.MIB;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** A worker holding runs whose bodies wait on slow MCP calls (a run that measured it). */
final class WaitingMarkdown {
  private WaitingMarkdown() {}

  static void render(Report results, StringBuilder md) {
    results.waiting.ifPresent(w -> render(w, md));
  }

  private static void render(Report.Waiting w, StringBuilder md) {
    md.append("\n## A worker holding runs whose bodies wait on slow MCP calls\n\n")
        .append(
            header(
                "runs",
                "calls + bodies held (start / end of window)",
                "bodies suspended (start / end)",
                "ramp s",
                "RSS MiB",
                "heap used MiB",
                "heap after full GC MiB",
                "xact_commit/s",
                "writes/s",
                "renewal period s",
                "writes per renewal period",
                "attempts whose lease expired (ramp and window)"))
        .append(
            row(
                String.valueOf(w.runs()),
                w.held() + " / " + w.heldAfter(),
                w.suspended() + " / " + w.suspendedAfter(),
                f1(w.ramp()),
                f1(w.rss() / (double) MIB),
                w.heap() < 0 ? "n/a" : f1(w.heap() / (double) MIB),
                w.liveHeap() < 0 ? "n/a" : f1(w.liveHeap() / (double) MIB),
                f1(w.spent().commits() / w.window()),
                f1(w.spent().writes() / w.window()),
                f1(w.renewalPeriod()),
                f1(w.commitsPerRenewal()),
                String.valueOf(w.leasesExpired())));
    if (w.runs() < 10_000) {
      md.append(
          "\nScaled down from 10,000 runs to "
              + w.runs()
              + " (quick mode); the per-run cost scales linearly.");
    }
    md.append(
        "\nThe worker JVM runs with the options `flows worker` starts with (`ops/worker.jvmopts`:"
            + " G1, max heap 512 MiB, heap kept within ~25 % of the live set after a collection, a"
            + " collection every 5 s when idle), unless FLOWS_BENCH_WORKER_JVM says otherwise; with"
            + " the JVM's defaults (a quarter of RAM) G1 keeps the heap it grew during the ramp and"
            + " RSS shows that, not the live set. The heap after a full GC is the live set. Writes"
            + " are counted with autovacuum off on the flows tables (after a VACUUM ANALYZE): the"
            + " renewals dirty enough rows for an auto-analyze per period or so, which is"
            + " Postgres's housekeeping, not the worker's. A body that has waited"
            + " SdkConfig.suspendAfter (10 s) gives its attempt back (it is replayed when its call"
            + " ends), and at most SdkConfig.maxResidentWaits (1,000) bodies wait in memory at once;"
            + " the window starts once every body has. What a waiting run then holds in the"
            + " worker: its call's lease in the one lease keeper, the call's attempt and spec, and"
            + " its pending request in the MCP client; no thread.\n");
  }
}
