package dev.flows.worker.telemetry;

import io.opentelemetry.api.OpenTelemetry;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The OpenTelemetry that flows reports to: the API's no-op until an embedding installs one ({@code
 * flows worker} installs the SDK configured by the standard {@code OTEL_*} variables). Instruments
 * are made once per install, so an uninstrumented process pays one volatile read per measurement.
 */
public final class FlowsTelemetry {
  /** The instrumentation scope of every flows span and metric. */
  public static final String SCOPE = "dev.flows";

  private static volatile State state = new State(OpenTelemetry.noop(), false);

  private record State(OpenTelemetry otel, boolean enabled) {}

  private static volatile FlowsMetrics metrics = new OtelFlowsMetrics(OpenTelemetry.noop());

  /**
   * The recorders embeddings installed, the last one recording (it keeps the metrics when
   * OpenTelemetry is installed); when it stops, the one installed before it records again.
   */
  private static final Deque<FlowsMetrics> recorders = new ArrayDeque<>();

  private static volatile boolean recording;

  private FlowsTelemetry() {}

  /**
   * Reports to {@code otel} from now on (spans of this process, and its metrics unless {@link
   * #recordMetricsTo} gave them another recorder).
   */
  public static synchronized void install(OpenTelemetry otel) {
    state = new State(otel, otel != OpenTelemetry.noop());
    metrics = recorders.isEmpty() ? new OtelFlowsMetrics(otel) : recorders.peek();
  }

  /**
   * Records this process's metrics into {@code to} instead of OpenTelemetry (one owner per
   * instrument: the metrics are not also recorded into OpenTelemetry), until {@link
   * #stopRecordingTo}.
   */
  public static synchronized void recordMetricsTo(FlowsMetrics to) {
    recorders.push(to);
    recording = true;
    metrics = to;
  }

  /**
   * {@code to} records no more: the recorder installed before it does, else OpenTelemetry's
   * instruments.
   */
  public static synchronized void stopRecordingTo(FlowsMetrics to) {
    recorders.removeIf(r -> r == to);
    recording = !recorders.isEmpty();
    metrics = recording ? recorders.peek() : new OtelFlowsMetrics(state.otel());
  }

  /** Back to the no-op (tests). */
  public static synchronized void uninstall() {
    install(OpenTelemetry.noop());
  }

  public static OpenTelemetry otel() {
    return state.otel();
  }

  /** Whether anything was installed: measurements that cost a journal read are made only then. */
  public static boolean enabled() {
    return state.enabled();
  }

  /** Whether the metrics are recorded anywhere: OpenTelemetry installed, or another recorder. */
  public static boolean measured() {
    return state.enabled() || recording;
  }

  public static FlowsMetrics metrics() {
    return metrics;
  }
}
