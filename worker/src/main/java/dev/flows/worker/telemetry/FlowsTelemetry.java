package dev.flows.worker.telemetry;

import io.opentelemetry.api.OpenTelemetry;

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

  private static volatile FlowsMetrics metrics = new FlowsMetrics(OpenTelemetry.noop());

  private FlowsTelemetry() {}

  /** Reports to {@code otel} from now on (spans and metrics of this process). */
  public static synchronized void install(OpenTelemetry otel) {
    state = new State(otel, otel != OpenTelemetry.noop());
    metrics = new FlowsMetrics(otel);
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

  public static FlowsMetrics metrics() {
    return metrics;
  }
}
