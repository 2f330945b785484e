package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** Baseline: this Postgres's own INSERT and claim limits, which every ratio is against. */
final class BaselineMarkdown {
  private BaselineMarkdown() {}

  static void render(Report results, StringBuilder md) {
    md.append("## Baseline: this Postgres's limits\n\n")
        .append(
            header(
                "concurrency",
                "INSERT+COMMIT /s",
                "commit p50 ms",
                "commit p99 ms",
                "SKIP LOCKED claim+commit /s"));
    for (int c : results.inserts.keySet()) {
      Baseline.Result i = results.inserts.get(c);
      md.append(
          row(
              String.valueOf(c),
              f0(i.perSecond()),
              f2(i.latency().p50()),
              f2(i.latency().p99()),
              f0(results.claims.get(c).perSecond())));
    }
  }
}
