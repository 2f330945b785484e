package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

import java.util.List;

/** A durable f.mcp call stage by stage per transport and revision, beside the bare call. */
final class McpStagesMarkdown {
  /**
   * One transport and revision: the durable call, the bare call back to back and interleaved with
   * the durable calls (one after each), and the durable call's stages.
   */
  record Measured(Stats durable, Stats bare, Stats bareInterleaved, List<Stats> stages) {}

  private McpStagesMarkdown() {}

  static void render(Report results, StringBuilder md) {
    if (results.mcpRevisions.isEmpty()) {
      return;
    }
    md.append("\n## A durable f.mcp call stage by stage, per revision (ms)\n\n")
        .append(
            "c=1, one JVM clock; the client pinned to each revision against a test server that"
                + " speaks it; the bare call is the same client's (a session of its own), on the"
                + " same server: back to back right after the durable run, and interleaved (one after"
                + " each durable call, on the body's thread). The target is judged over the"
                + " interleaved one. Stages are p50 / p99 each, so they need not add up to the"
                + " call's.\n\n")
        // One label column, so ops/bench/compare matches each row of the two sides.
        .append(header("transport, revision: what", "p50", "p99"));
    results.mcpRevisions.forEach(
        (name, m) -> {
          md.append(
              row(name + ": durable f.mcp, whole", f2(m.durable().p50()), f2(m.durable().p99())));
          md.append(row(name + ": bare call, whole", f2(m.bare().p50()), f2(m.bare().p99())));
          md.append(
              row(
                  name + ": added by durability",
                  f2(m.durable().p50() - m.bare().p50()),
                  f2(m.durable().p99() - m.bare().p99())));
          md.append(
              row(
                  name + ": bare call interleaved, whole",
                  f2(m.bareInterleaved().p50()),
                  f2(m.bareInterleaved().p99())));
          md.append(
              row(
                  name + ": added over the interleaved bare call (the target)",
                  f2(m.durable().p50() - m.bareInterleaved().p50()),
                  f2(m.durable().p99() - m.bareInterleaved().p99())));
          for (int i = 0; i < m.stages().size(); i++) {
            md.append(
                row(
                    name + ": " + McpStages.STAGES.get(i),
                    f2(m.stages().get(i).p50()),
                    f2(m.stages().get(i).p99())));
          }
        });
  }
}
