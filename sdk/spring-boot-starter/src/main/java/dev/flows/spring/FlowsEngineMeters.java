package dev.flows.spring;

import dev.flows.embed.EngineMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The engine's metrics (SURFACE.md, "Observability") as Micrometer meters of the application's
 * registry, under the same names and tags: counters {@code flows.runs.started} ({@code flow}),
 * {@code flows.runs.ended} ({@code flow}, {@code status}), {@code flows.attempts} ({@code reason}),
 * {@code flows.leases.lost} ({@code reason}); timers {@code flows.claim.duration} and {@code
 * mcp.client.operation.duration}. Bound, it is the process's one recorder of them ({@link
 * EngineMetrics#recordTo}): they are not also recorded into OpenTelemetry. Closed with the context.
 */
public class FlowsEngineMeters implements MeterBinder, EngineMetrics, AutoCloseable {
  public static final String RUNS_STARTED = "flows.runs.started";
  public static final String RUNS_ENDED = "flows.runs.ended";
  public static final String ATTEMPTS = "flows.attempts";
  public static final String LEASES_LOST = "flows.leases.lost";
  public static final String CLAIM_DURATION = "flows.claim.duration";
  public static final String MCP_DURATION = "mcp.client.operation.duration";

  private volatile @Nullable MeterRegistry registry;
  private volatile Optional<Recording> recording = Optional.empty();

  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    this.registry = registry;
    if (recording.isEmpty()) {
      recording = Optional.of(EngineMetrics.recordTo(this));
    }
  }

  @Override
  public void runStarted(String flow) {
    count(RUNS_STARTED, "Runs admitted, by flow", Tags.of("flow", flow));
  }

  @Override
  public void runEnded(String flow, String status) {
    count(
        RUNS_ENDED, "Runs that ended, by flow and status", Tags.of("flow", flow, "status", status));
  }

  @Override
  public void attemptCompleted(String reason) {
    count(ATTEMPTS, "Step attempts completed, by completion reason", Tags.of("reason", reason));
  }

  @Override
  public void leaseLost(String reason) {
    count(
        LEASES_LOST,
        "Attempts whose lease was lost before they completed, by reason",
        Tags.of("reason", reason));
  }

  @Override
  public void claimed(Duration took) {
    time(CLAIM_DURATION, "Latency of one claim against the journal", Tags.empty(), took);
  }

  @Override
  public void mcpCall(String server, String tool, Duration took, Optional<String> errorType) {
    Tags tags =
        Tags.of(
            "mcp.server.name", server, "gen_ai.tool.name", tool, "mcp.method.name", "tools/call");
    time(
        MCP_DURATION,
        "Duration of an MCP request sent by flows, by server and tool",
        errorType.map(e -> tags.and("error.type", e)).orElse(tags),
        took);
  }

  /** Hands the engine's metrics back to OpenTelemetry. */
  @Override
  public synchronized void close() {
    recording.ifPresent(Recording::close);
    recording = Optional.empty();
  }

  private void count(String name, String description, Tags tags) {
    MeterRegistry r = registry;
    if (r != null) {
      Counter.builder(name).description(description).tags(tags).register(r).increment();
    }
  }

  private void time(String name, String description, Tags tags, Duration took) {
    MeterRegistry r = registry;
    if (r != null) {
      Timer.builder(name).description(description).tags(tags).register(r).record(took);
    }
  }
}
