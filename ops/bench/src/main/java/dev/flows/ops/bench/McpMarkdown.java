package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** Durable f.mcp against the bare MCP client, per transport and concurrency. */
final class McpMarkdown {
  private McpMarkdown() {}

  static void render(Report results, StringBuilder md) {
    md.append("\n## Durable f.mcp vs the bare MCP client (no-op tool)\n\n")
        .append(
            header(
                "transport",
                "concurrency",
                "durable calls/s",
                "bare calls/s",
                "ratio",
                "bare calls failed or unanswered in 5 s"));
    results.mcp.forEach(
        (server, byC) ->
            byC.forEach(
                (c, v) ->
                    md.append(
                        row(
                            server,
                            String.valueOf(c),
                            f0(v[0]),
                            f0(v[1]),
                            f2(v[0] / v[1]),
                            f0(v[2])))));
  }
}
