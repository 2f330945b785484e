package dev.flows.ops;

import com.sun.net.httpserver.HttpServer;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.worker.telemetry.FlowsTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import javax.sql.DataSource;

/**
 * The OpenTelemetry SDK of a {@code flows} process: configured by the standard {@code OTEL_*}
 * variables (autoconfigure: OTLP exporters, sampler, resource), with flows' id generator so runs
 * keep one trace across workers, the queue gauges read from the database, and the Prometheus text
 * endpoint {@code /metrics} when a metrics port is given. Nothing is installed when neither is
 * asked for: the API's no-op stays in place.
 */
final class OpsTelemetry implements AutoCloseable {
  private static final AttributeKey<String> QUEUE = AttributeKey.stringKey("queue");
  private static final AttributeKey<String> STATE = AttributeKey.stringKey("state");

  /** Per queue: ready now, ready once a retry backoff ends, parked for an operator. */
  private static final String DEPTH_SQL =
      """
      SELECT r.queue,
             count(*) FILTER (WHERE s.status = 'ready' AND s.not_before <= now()) AS ready,
             count(*) FILTER (WHERE s.status = 'ready' AND s.not_before > now()) AS backing_off,
             count(*) FILTER (WHERE s.status = 'parked') AS parked
        FROM flows.steps s JOIN flows.runs r ON r.run_id = s.run_id
       WHERE s.status IN ('ready', 'parked')
       GROUP BY r.queue""";

  /** Effects recorded, never confirmed, whose step is parked: each waits for an operator. */
  private static final String PARKED_EFFECTS_SQL =
      """
      SELECT r.queue, count(*) AS effects
        FROM flows.effect_elections e
        JOIN flows.steps s ON s.run_id = e.run_id AND s.step_id = e.step_id
        JOIN flows.runs r ON r.run_id = e.run_id
       WHERE s.status = 'parked' AND NOT e.confirmed
       GROUP BY r.queue""";

  private final Optional<OpenTelemetrySdk> sdk;
  private final Optional<HttpServer> server;

  private OpsTelemetry(Optional<OpenTelemetrySdk> sdk, Optional<HttpServer> server) {
    this.sdk = sdk;
    this.server = server;
  }

  /**
   * Installs the SDK when {@code env} has an {@code OTEL_*} variable or {@code metricsPort} is
   * given (0: any free port); otherwise nothing.
   */
  static OpsTelemetry start(
      Map<String, String> env, Optional<Integer> metricsPort, DataSource database) {
    boolean configured =
        env.keySet().stream().anyMatch(k -> k.startsWith("OTEL_"))
            && !"true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", "false"));
    if (!configured && metricsPort.isEmpty()) {
      return new OpsTelemetry(Optional.empty(), Optional.empty());
    }
    Optional<PrometheusReader> reader = metricsPort.map(p -> new PrometheusReader());
    Map<String, String> props = new HashMap<>();
    props.put("otel.service.name", "flows");
    props.put("otel.logs.exporter", "none");
    if (!configured) {
      props.put("otel.traces.exporter", "none");
      props.put("otel.metrics.exporter", "none");
    }
    env.forEach(
        (k, v) -> {
          if (k.startsWith("OTEL_")) {
            props.put(k.toLowerCase(Locale.ROOT).replace('_', '.'), v);
          }
        });
    OpenTelemetrySdk otel;
    try {
      otel =
          AutoConfiguredOpenTelemetrySdk.builder()
              .addPropertiesSupplier(() -> props)
              .addTracerProviderCustomizer((b, c) -> b.setIdGenerator(new FlowsIdGenerator()))
              .addMeterProviderCustomizer(
                  (b, c) -> reader.isPresent() ? b.registerMetricReader(reader.get()) : b)
              .disableShutdownHook()
              .build()
              .getOpenTelemetrySdk();
    } catch (RuntimeException e) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "OpenTelemetry configuration refused: " + e.getMessage(),
          "OTEL_* environment",
          "fix the variable it names (see the OpenTelemetry SDK autoconfigure documentation)");
    }
    FlowsTelemetry.install(otel);
    gauges(otel.getMeter(FlowsTelemetry.SCOPE), database);
    try {
      Optional<HttpServer> server = reader.map(r -> serve(metricsPort.orElseThrow(), r));
      return new OpsTelemetry(Optional.of(otel), server);
    } catch (UncheckedIOException e) {
      FlowsTelemetry.uninstall();
      otel.close();
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "cannot serve metrics on port " + metricsPort.orElseThrow() + ": " + e.getCause(),
          "--metrics-port",
          "give a free port (0 picks one)");
    }
  }

  /** The bound metrics port, when serving {@code /metrics}. */
  Optional<Integer> metricsPort() {
    return server.map(s -> s.getAddress().getPort());
  }

  private static void gauges(Meter meter, DataSource database) {
    ObservableLongMeasurement depth =
        meter
            .gaugeBuilder("flows.queue.depth")
            .ofLongs()
            .setDescription("Steps per queue: ready, backing off (retry pending), parked")
            .setUnit("{step}")
            .buildObserver();
    ObservableLongMeasurement parked =
        meter
            .gaugeBuilder("flows.effects.parked")
            .ofLongs()
            .setDescription("Effects of parked steps waiting for an operator, per queue")
            .setUnit("{effect}")
            .buildObserver();
    // One callback for both: each collection (a scrape, an OTLP export) reads the database once.
    meter.batchCallback(
        () -> {
          try (Connection c = database.getConnection();
              Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery(DEPTH_SQL)) {
              while (rs.next()) {
                String q = rs.getString(1);
                depth.record(rs.getLong(2), Attributes.of(QUEUE, q, STATE, "ready"));
                depth.record(rs.getLong(3), Attributes.of(QUEUE, q, STATE, "backing_off"));
                depth.record(rs.getLong(4), Attributes.of(QUEUE, q, STATE, "parked"));
              }
            }
            try (ResultSet rs = st.executeQuery(PARKED_EFFECTS_SQL)) {
              while (rs.next()) {
                parked.record(rs.getLong(2), Attributes.of(QUEUE, rs.getString(1)));
              }
            }
          } catch (SQLException e) {
            // The database is away: this collection goes without the gauges.
          }
        },
        depth,
        parked);
  }

  private static HttpServer serve(int port, PrometheusReader reader) {
    try {
      HttpServer s = HttpServer.create(new InetSocketAddress(port), 0);
      s.createContext(
          "/metrics",
          x -> {
            try (x) {
              if (!x.getRequestMethod().equals("GET")) {
                x.sendResponseHeaders(405, -1);
                return;
              }
              byte[] body = reader.scrape().getBytes(StandardCharsets.UTF_8);
              x.getResponseHeaders()
                  .set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
              x.sendResponseHeaders(200, body.length);
              try (OutputStream o = x.getResponseBody()) {
                o.write(body);
              }
            }
          });
      s.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
      s.start();
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    server.ifPresent(s -> s.stop(0));
    sdk.ifPresent(
        s -> {
          FlowsTelemetry.uninstall();
          s.close();
        });
  }
}
