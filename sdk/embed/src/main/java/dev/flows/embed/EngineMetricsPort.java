package dev.flows.embed;

import dev.flows.worker.telemetry.FlowsMetrics;
import java.time.Duration;
import java.util.Optional;

/** The engine's metrics port, answered by a public {@link EngineMetrics}. */
record EngineMetricsPort(EngineMetrics to) implements FlowsMetrics {
  @Override
  public void runStarted(String flow) {
    to.runStarted(flow);
  }

  @Override
  public void runEnded(String flow, String status) {
    to.runEnded(flow, status);
  }

  @Override
  public void attemptCompleted(String reason) {
    to.attemptCompleted(reason);
  }

  @Override
  public void leaseLost(String reason) {
    to.leaseLost(reason);
  }

  @Override
  public void claimed(Duration took) {
    to.claimed(took);
  }

  @Override
  public void mcpCall(String server, String tool, Duration took, String errorType) {
    to.mcpCall(server, tool, took, errorType.isEmpty() ? Optional.empty() : Optional.of(errorType));
  }
}
