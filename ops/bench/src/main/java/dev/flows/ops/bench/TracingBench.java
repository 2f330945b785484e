package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAndWait;
import static dev.flows.ops.bench.Runs.mcpInput;
import static dev.flows.ops.bench.Runs.medianStepRate;
import static dev.flows.ops.bench.Runs.stepsInput;
import static dev.flows.ops.bench.Runs.warmUp;

import com.sun.net.httpserver.HttpServer;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.telemetry.FlowsTelemetry;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * f.step and durable f.mcp with tracing off (the API's no-op) and on (the SDK exporting every span
 * over OTLP/HTTP to a local collector stand-in that accepts and discards), alternating off and on
 * in one run on one database, so the ratio is the cost of tracing.
 */
record TracingBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;

  /** Flows at once for f.step: the middle concurrency the throughput section measures. */
  private static final int STEP_FLOWS = 4;

  /** Off, on, off, on: each mode measured twice, the median kept. */
  private static final int ROUNDS = 2;

  /** What one mode measured. */
  record Mode(double stepsPerSecond, double mcpCallsPerSecond, double mcpP50Ms) {}

  @Override
  public void run() throws Exception {
    log("tracing off and on");
    String url = pg.fresh("bench_tracing", true);
    List<Mode> off = new ArrayList<>();
    List<Mode> on = new ArrayList<>();
    try (Collector collector = Collector.start();
        McpServers servers = McpServers.start();
        PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = Engines.engine(journal, 2 * STEP_FLOWS + 2, DEFAULT_LEASE)) {
      engine.startWorker();
      warmUp(
          plan.warmupSeconds(),
          () -> {
            admitAndWait(url, engine, BenchFlows.STEPS, STEP_FLOWS, i -> stepsInput("tw" + i, 20));
            admitAndWait(
                url,
                engine,
                BenchFlows.MCP,
                1,
                i -> mcpInput(BenchFlows.STDIO, plan.mcpWarmupCalls()),
                servers.inventory());
          });
      for (int r = 0; r < ROUNDS; r++) {
        off.add(measure(url, engine, servers, "off" + r));
        try (OpenTelemetrySdk sdk = collector.sdk()) {
          FlowsTelemetry.install(sdk);
          try {
            on.add(measure(url, engine, servers, "on" + r));
          } finally {
            FlowsTelemetry.uninstall();
            sdk.getSdkTracerProvider().forceFlush().join(10, TimeUnit.SECONDS);
          }
        }
      }
      report.tracing(
          new Report.Tracing(median(off), median(on), collector.requests(), collector.bytes()));
    }
    pg.drop("bench_tracing");
  }

  private Mode measure(String url, FlowsEngine engine, McpServers servers, String round)
      throws Exception {
    double steps =
        medianStepRate(
            url, engine, STEP_FLOWS, plan.stepsPerFlow(), "t" + round, "  " + round + " f.step");
    int n = plan.mcpCallsPerFlow() * 3;
    BenchFlows.MCP_CALL_NANOS.clear();
    double secs =
        admitAndWait(
            url,
            engine,
            BenchFlows.MCP,
            1,
            i -> mcpInput(BenchFlows.STDIO, n),
            servers.inventory());
    Stats calls = Stats.of(BenchFlows.MCP_CALL_NANOS);
    log(String.format("  %s f.mcp %d calls/s, p50 %.2f ms", round, (int) (n / secs), calls.p50()));
    return new Mode(steps, n / secs, calls.p50());
  }

  private static Mode median(List<Mode> modes) {
    return new Mode(
        middle(modes.stream().map(Mode::stepsPerSecond).toList()),
        middle(modes.stream().map(Mode::mcpCallsPerSecond).toList()),
        middle(modes.stream().map(Mode::mcpP50Ms).toList()));
  }

  private static double middle(List<Double> v) {
    List<Double> s = v.stream().sorted().toList();
    return s.size() % 2 == 1
        ? s.get(s.size() / 2)
        : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
  }

  /**
   * The collector stand-in: answers every OTLP/HTTP export with an empty success, counting the
   * requests and bytes it was sent (the proof that spans really left the process).
   */
  static final class Collector implements AutoCloseable {
    private final HttpServer http;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    private Collector(HttpServer http) {
      this.http = http;
    }

    static Collector start() throws IOException {
      HttpServer http =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      Collector c = new Collector(http);
      http.createContext(
          "/v1/traces",
          ex -> {
            try (InputStream in = ex.getRequestBody()) {
              c.bytes.addAndGet(in.readAllBytes().length);
            }
            c.requests.incrementAndGet();
            ex.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            ex.sendResponseHeaders(200, -1);
            ex.close();
          });
      http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
      http.start();
      return c;
    }

    /** A tracing SDK exporting in batches to this stand-in, as {@code OTEL_*} would configure. */
    OpenTelemetrySdk sdk() {
      String endpoint = "http://127.0.0.1:" + http.getAddress().getPort() + "/v1/traces";
      return OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .setResource(Resource.getDefault())
                  .addSpanProcessor(
                      BatchSpanProcessor.builder(
                              OtlpHttpSpanExporter.builder().setEndpoint(endpoint).build())
                          .build())
                  .build())
          .build();
    }

    long requests() {
      return requests.get();
    }

    long bytes() {
      return bytes.get();
    }

    @Override
    public void close() {
      http.stop(0);
    }
  }
}
