package dev.flows.worker.telemetry;

import java.time.Duration;

/**
 * What the engine measures (SURFACE.md, "Observability"): one recorder owns every {@code flows.*}
 * instrument of the process, OpenTelemetry's unless an embedding installed another ({@link
 * FlowsTelemetry#recordMetricsTo}). Called on the engine's hot paths: an implementation records and
 * returns, it never blocks nor throws.
 */
public interface FlowsMetrics {
  /** A run admitted ({@code flows.runs.started}). */
  void runStarted(String flow);

  /**
   * A run ended by a worker's completion, {@code status} its wire name ({@code flows.runs.ended}).
   */
  void runEnded(String flow, String status);

  /**
   * An attempt completed, {@code reason} the completion reason's wire name ({@code
   * flows.attempts}).
   */
  void attemptCompleted(String reason);

  /** An attempt's lease lost before it completed ({@code flows.leases.lost}). */
  void leaseLost(String reason);

  /** One claim against the journal ({@code flows.claim.duration}). */
  void claimed(Duration took);

  /**
   * One {@code tools/call} ({@code mcp.client.operation.duration}); {@code errorType} empty when it
   * succeeded.
   */
  void mcpCall(String server, String tool, Duration took, String errorType);
}
