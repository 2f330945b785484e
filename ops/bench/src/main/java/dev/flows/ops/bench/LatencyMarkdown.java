package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** Latency: admission to first dispatch, and what durability adds to an f.mcp call. */
final class LatencyMarkdown {
  private LatencyMarkdown() {}

  static void render(Report results, StringBuilder md) {
    md.append("\n## Latency (ms)\n\n").append(header("what", "p50", "p99"));
    md.append(
        row(
            "run start (admit) → first dispatch of the body",
            f2(results.dispatch.p50()),
            f2(results.dispatch.p99())));
    results.mcpLatency.forEach(
        (server, s) -> {
          md.append(row("durable f.mcp over " + server + " (c=1)", f2(s[0].p50()), f2(s[0].p99())));
          md.append(row("bare call over " + server + " (c=1)", f2(s[1].p50()), f2(s[1].p99())));
          md.append(
              row(
                  "added by durability over " + server,
                  f2(s[0].p50() - s[1].p50()),
                  f2(s[0].p99() - s[1].p99())));
        });
  }
}
