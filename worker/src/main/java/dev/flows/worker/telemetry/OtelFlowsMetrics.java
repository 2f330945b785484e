package dev.flows.worker.telemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import java.time.Duration;
import java.util.List;

/**
 * The {@code flows.*} instruments as OpenTelemetry instruments of the scope {@code dev.flows}
 * (names and labels in SURFACE.md), the engine's metrics unless another recorder was installed.
 */
final class OtelFlowsMetrics implements FlowsMetrics {
  public static final AttributeKey<String> FLOW = AttributeKey.stringKey("flow");
  public static final AttributeKey<String> STATUS = AttributeKey.stringKey("status");
  public static final AttributeKey<String> REASON = AttributeKey.stringKey("reason");
  public static final AttributeKey<String> MCP_SERVER = AttributeKey.stringKey("mcp.server.name");
  public static final AttributeKey<String> TOOL = AttributeKey.stringKey("gen_ai.tool.name");
  public static final AttributeKey<String> METHOD = AttributeKey.stringKey("mcp.method.name");
  public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  /** Seconds: claims and tool calls of a few milliseconds up to a minute. */
  private static final List<Double> SECONDS =
      List.of(
          0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0);

  private final LongCounter runsStarted;
  private final LongCounter runsEnded;
  private final LongCounter attempts;
  private final LongCounter leasesLost;
  private final DoubleHistogram claimDuration;
  private final DoubleHistogram mcpDuration;

  OtelFlowsMetrics(OpenTelemetry otel) {
    Meter m = otel.getMeter(FlowsTelemetry.SCOPE);
    runsStarted =
        m.counterBuilder("flows.runs.started")
            .setDescription("Runs admitted, by flow")
            .setUnit("{run}")
            .build();
    runsEnded =
        m.counterBuilder("flows.runs.ended")
            .setDescription("Runs that ended, by flow and status")
            .setUnit("{run}")
            .build();
    attempts =
        m.counterBuilder("flows.attempts")
            .setDescription("Step attempts completed, by completion reason")
            .setUnit("{attempt}")
            .build();
    leasesLost =
        m.counterBuilder("flows.leases.lost")
            .setDescription("Attempts whose lease was lost before they completed, by reason")
            .setUnit("{attempt}")
            .build();
    claimDuration =
        m.histogramBuilder("flows.claim.duration")
            .setDescription("Latency of one claim against the journal")
            .setUnit("s")
            .setExplicitBucketBoundariesAdvice(SECONDS)
            .build();
    mcpDuration =
        m.histogramBuilder("mcp.client.operation.duration")
            .setDescription("Duration of an MCP request sent by flows, by server and tool")
            .setUnit("s")
            .setExplicitBucketBoundariesAdvice(SECONDS)
            .build();
  }

  @Override
  public void runStarted(String flow) {
    runsStarted.add(1, Attributes.of(FLOW, flow));
  }

  @Override
  public void runEnded(String flow, String status) {
    runsEnded.add(1, Attributes.of(FLOW, flow, STATUS, status));
  }

  @Override
  public void attemptCompleted(String reason) {
    attempts.add(1, Attributes.of(REASON, reason));
  }

  @Override
  public void leaseLost(String reason) {
    leasesLost.add(1, Attributes.of(REASON, reason));
  }

  @Override
  public void claimed(Duration took) {
    claimDuration.record(seconds(took));
  }

  @Override
  public void mcpCall(String server, String tool, Duration took, String errorType) {
    Attributes a =
        errorType.isEmpty()
            ? Attributes.of(MCP_SERVER, server, TOOL, tool, METHOD, "tools/call")
            : Attributes.of(
                MCP_SERVER, server, TOOL, tool, METHOD, "tools/call", ERROR_TYPE, errorType);
    mcpDuration.record(seconds(took), a);
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
