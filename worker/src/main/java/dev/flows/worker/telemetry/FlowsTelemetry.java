package dev.flows.worker.telemetry;

import io.opentelemetry.api.OpenTelemetry;
import java.util.Optional;

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

  /** A recorder an embedding installed: it keeps the metrics when OpenTelemetry is installed. */
  private static Optional<FlowsMetrics> recorder = Optional.empty();

  private static volatile boolean recording;

  private FlowsTelemetry() {}

  /**
   * Reports to {@code otel} from now on (spans of this process, and its metrics unless {@link
   * #recordMetricsTo} gave them another recorder).
   */
  public static synchronized void install(OpenTelemetry otel) {
    state = new State(otel, otel != OpenTelemetry.noop());
    metrics = recorder.orElseGet(() -> new OtelFlowsMetrics(otel));
  }

  /**
   * Records this process's metrics into {@code to} instead of OpenTelemetry (one owner per
   * instrument: the metrics are not also recorded into OpenTelemetry), until {@link
   * #stopRecordingTo}.
   */
  public static synchronized void recordMetricsTo(FlowsMetrics to) {
    recorder = Optional.of(to);
    recording = true;
    metrics = to;
  }

  /** Back to OpenTelemetry's instruments, when {@code to} is still the recorder. */
  public static synchronized void stopRecordingTo(FlowsMetrics to) {
    if (recorder.isPresent() && recorder.get() == to) {
      recorder = Optional.empty();
      recording = false;
      metrics = new OtelFlowsMetrics(state.otel());
    }
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
