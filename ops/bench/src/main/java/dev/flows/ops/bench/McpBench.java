package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAndWait;
import static dev.flows.ops.bench.Runs.mcpInput;
import static dev.flows.ops.bench.Runs.warmUp;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.worker.WorkerConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Durable f.mcp against the same no-op call made bare through the MCP client, on both transports.
 */
record McpBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;
  private static final Duration BARE_CALL_TIMEOUT = Duration.ofSeconds(5);

  /** Bare calls refused or unanswered within {@link #BARE_CALL_TIMEOUT}, over the whole run. */
  static final LongAdder LOST_BARE_CALLS = new LongAdder();

  /** Flows run at once to warm the durable MCP path up before it is measured. */
  private static final int WARMUP_FLOWS = 4;

  /** The same no-op call made bare through the MCP client: no journal at all. */
  static Baseline.Result bareCalls(McpTransportPort session, int c, double seconds)
      throws Exception {
    return Baseline.loop(
        c,
        seconds,
        (worker, end, record) -> {
          long t;
          while ((t = System.nanoTime()) < end) {
            try {
              bareCall(session);
              record.accept(System.nanoTime() - t);
            } catch (java.util.concurrent.TimeoutException
                | java.util.concurrent.ExecutionException lost) {
              // Counted and reported, not fatal (a reconnecting HTTP session can refuse a call);
              // a short pause lets a reconnect finish.
              LOST_BARE_CALLS.increment();
              Thread.sleep(50);
            }
          }
        });
  }

  /** One bare no-op call, waited for (at most {@link #BARE_CALL_TIMEOUT}). */
  static void bareCall(McpTransportPort session) throws Exception {
    session
        .callTool(
            "noop",
            Map.of(),
            Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, UUID.randomUUID().toString()))
        .get(BARE_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void run() throws Exception {
    log("f.mcp throughput and added latency");
    String url = pg.fresh("bench_mcp", true);
    int maxC = plan.concurrencies().getLast();
    try (McpServers servers = McpServers.start();
        PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        // The two statements of an inline call are timed for the per-stage breakdown at c=1.
        FlowsEngine engine = Engines.engine(McpStages.timed(journal), 2 * maxC + 2, DEFAULT_LEASE);
        McpSessions bare =
            new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment())) {
      engine.startWorker();
      for (String server : List.of(BenchFlows.STDIO, BenchFlows.HTTP)) {
        McpTransportPort session = bare.session(McpServerConfigJson.write(servers.config(server)));
        // Warm-up: starts the engine's own session to the server and gives the JIT the durable
        // path as long as the bare path gets it (the bare loop below makes thousands of calls).
        warmUp(
            plan.warmupSeconds(),
            () ->
                admitAndWait(
                    url,
                    engine,
                    BenchFlows.MCP,
                    WARMUP_FLOWS,
                    i -> mcpInput(server, plan.mcpWarmupCalls()),
                    servers.inventory()));
        bareCalls(session, 1, 0.5);
        for (int c : plan.concurrencies()) {
          int n = c == 1 ? plan.mcpCallsPerFlow() * 3 : plan.mcpCallsPerFlow();
          BenchFlows.MCP_CALL_NANOS.clear();
          if (c == 1) {
            McpStages.start();
          }
          double secs =
              admitAndWait(
                  url, engine, BenchFlows.MCP, c, i -> mcpInput(server, n), servers.inventory());
          if (c == 1) {
            report.mcpStages(server, McpStages.stop());
          }
          Stats durable = Stats.of(BenchFlows.MCP_CALL_NANOS);
          long lostBefore = LOST_BARE_CALLS.sum();
          Baseline.Result b = bareCalls(session, c, plan.bareSeconds());
          report.mcp(server, c, c * n / secs, durable, b.perSecond(), b.latency());
          report.lostBareCalls(server, c, LOST_BARE_CALLS.sum() - lostBefore);
          log(
              "  "
                  + server
                  + " c="
                  + c
                  + " durable "
                  + (int) (c * n / secs)
                  + "/s bare "
                  + (int) b.perSecond()
                  + "/s");
        }
      }
    }
    pg.drop("bench_mcp");
  }
}
