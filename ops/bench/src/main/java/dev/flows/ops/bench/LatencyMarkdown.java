package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/**
 * Latency: admission to first dispatch, and what durability adds to an f.mcp call, in all and per
 * stage.
 */
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
    renderStages(results, md);
  }

  /**
   * A durable f.mcp call at c=1, stage by stage, beside the bare call of the same run: what the
   * journal's two statements cost, and what the exchange costs between them.
   */
  private static void renderStages(Report results, StringBuilder md) {
    if (results.mcpStages.isEmpty()) {
      return;
    }
    md.append(
            "\nA durable f.mcp call (inline, c=1) stage by stage, timed on one JVM clock: the"
                + " body's call, the two journal statements as the engine sends them and has them"
                + " answered, and the body's return; the bare call of the same run beside it."
                + " Stages are p50 / p99 each, so they need not add up to the call's.\n\n")
        .append(header("transport", "stage", "p50 ms", "p99 ms"));
    results.mcpStages.forEach(
        (server, stages) -> {
          for (int i = 0; i < stages.size(); i++) {
            md.append(
                row(
                    server,
                    McpStages.STAGES.get(i),
                    f2(stages.get(i).p50()),
                    f2(stages.get(i).p99())));
          }
          Stats[] calls = results.mcpLatency.get(server);
          if (calls != null) {
            md.append(row(server, "bare call, whole", f2(calls[1].p50()), f2(calls[1].p99())));
          }
        });
  }
}
