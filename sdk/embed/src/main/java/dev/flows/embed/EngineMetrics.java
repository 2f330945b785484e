package dev.flows.embed;

import dev.flows.worker.telemetry.FlowsMetrics;
import dev.flows.worker.telemetry.FlowsTelemetry;
import java.time.Duration;
import java.util.Optional;

/**
 * A recorder of the engine's metrics (SURFACE.md, "Observability": {@code flows.runs.started},
 * {@code flows.runs.ended}, {@code flows.attempts}, {@code flows.leases.lost}, {@code
 * flows.claim.duration}, {@code mcp.client.operation.duration}), for a service that keeps its
 * meters elsewhere than OpenTelemetry (the Spring Boot starter's Micrometer meters). The metrics
 * are the process's, as the engine's OpenTelemetry instruments are: while one is installed ({@link
 * #recordTo}) it alone (the last installed) records every engine of the process, and OpenTelemetry
 * does not. Called on the engine's hot paths: record and return, never block nor throw.
 */
public interface EngineMetrics {
  /** A run admitted. */
  void runStarted(String flow);

  /** A run ended by a worker's completion; {@code status} as {@code runs show} names it. */
  void runEnded(String flow, String status);

  /** A step attempt completed; {@code reason} the completion reason's wire name. */
  void attemptCompleted(String reason);

  /** An attempt's lease was lost before it completed. */
  void leaseLost(String reason);

  /** One claim against the journal took {@code took}. */
  void claimed(Duration took);

  /** One MCP {@code tools/call}; {@code errorType} when it failed. */
  void mcpCall(String server, String tool, Duration took, Optional<String> errorType);

  /**
   * Records the engine's metrics of this process into {@code metrics} (instead of the one installed
   * before) until the answer is closed; then the recorder installed before it records again, or,
   * with none, OpenTelemetry's instruments.
   */
  static Recording recordTo(EngineMetrics metrics) {
    FlowsMetrics port = new EngineMetricsPort(metrics);
    FlowsTelemetry.recordMetricsTo(port);
    return () -> FlowsTelemetry.stopRecordingTo(port);
  }

  /** An installed recorder; closing it (again: nothing) uninstalls it if it still records. */
  interface Recording extends AutoCloseable {
    @Override
    void close();
  }
}
