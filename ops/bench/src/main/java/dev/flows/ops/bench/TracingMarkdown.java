package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.row;

/** Tracing off and on: the f.step and durable f.mcp figures side by side. */
final class TracingMarkdown {
  private TracingMarkdown() {}

  static void render(Report results, StringBuilder md) {
    results.tracing.ifPresent(
        t ->
            md.append(
                "\n## Tracing off and on\n\n"
                    + "The same workloads, alternating off (the OpenTelemetry API's no-op) and on"
                    + " (the SDK, every span exported in batches over OTLP/HTTP to a local"
                    + " collector stand-in), two rounds each, medians. f.step: 4 flows at once;"
                    + " f.mcp: one flow of durable calls over stdio. The stand-in received "
                    + t.exports()
                    + " export requests, "
                    + t.exportedBytes()
                    + " bytes.\n\n"
                    + "| figure | off | on | on/off |\n"
                    + "|---|---|---|---|\n"
                    + row(
                        "f.step steps/s",
                        f0(t.off().stepsPerSecond()),
                        f0(t.on().stepsPerSecond()),
                        f2(t.on().stepsPerSecond() / t.off().stepsPerSecond()))
                    + row(
                        "durable f.mcp calls/s",
                        f0(t.off().mcpCallsPerSecond()),
                        f0(t.on().mcpCallsPerSecond()),
                        f2(t.on().mcpCallsPerSecond() / t.off().mcpCallsPerSecond()))
                    + row(
                        "durable f.mcp p50 ms",
                        f2(t.off().mcpP50Ms()),
                        f2(t.on().mcpP50Ms()),
                        f2(t.on().mcpP50Ms() / t.off().mcpP50Ms()))));
  }
}
