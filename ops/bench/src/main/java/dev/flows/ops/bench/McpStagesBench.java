package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAndWait;
import static dev.flows.ops.bench.Runs.mcpInput;
import static dev.flows.ops.bench.Runs.warmUp;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.mcp.testkit.JettyMcpServer;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.ModernTestServer;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.worker.WorkerConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A durable f.mcp call at c=1 stage by stage ({@link McpStages}) on each revision and transport:
 * the client pinned to 2025-11-25 against the 2025 test servers, and to 2026-07-28 against the
 * modern ones, the bare call of the same client on the same server measured right after.
 */
record McpStagesBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  /** One measured pairing: its name in the report, and the server pinned to one revision. */
  private record Pairing(String name, McpServerConfig config) {}

  @Override
  public void run() throws Exception {
    log("f.mcp stage by stage, per revision");
    String url = pg.fresh("bench_mcpstages", true);
    McpServerConfig.Stdio legacyStdio = Jvm.stdioServer(BenchFlows.STDIO, List.of(), Map.of());
    McpServerConfig.Stdio modernStdio = Jvm.modernStdioServer(BenchFlows.STDIO);
    try (JettyMcpServer legacyHttp = new JettyMcpServer(Optional.empty()).start();
        ModernTestServer modernHttp = ModernTestServer.http(0);
        PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine =
            Engines.engine(McpStages.timed(journal), 4, WorkerConfig.DEFAULT_LEASE);
        McpSessions bare =
            new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment())) {
      engine.startWorker();
      revision(
          url,
          engine,
          bare,
          McpProtocol.V2025_11_25,
          pinned(legacyStdio, McpProtocol.V2025_11_25),
          http(legacyHttp.url(), McpProtocol.V2025_11_25));
      revision(
          url,
          engine,
          bare,
          McpProtocol.V2026_07_28,
          pinned(modernStdio, McpProtocol.V2026_07_28),
          http(modernHttp.directUrl(), McpProtocol.V2026_07_28));
    }
    pg.drop("bench_mcpstages");
  }

  /** Both transports pinned to {@code protocol}, each measured with the other in the inventory. */
  private void revision(
      String url,
      FlowsEngine engine,
      McpSessions bare,
      McpProtocol protocol,
      McpServerConfig stdio,
      McpServerConfig http)
      throws Exception {
    Inventory inventory =
        Inventory.of(
            List.of(
                new Inventory.Server(stdio, true, List.of(Engines.tool(stdio.name(), "noop"))),
                new Inventory.Server(http, true, List.of(Engines.tool(http.name(), "noop")))));
    for (McpServerConfig c : List.of(stdio, http)) {
      measure(url, engine, bare, new Pairing(c.name() + " " + protocol.wire(), c), inventory);
    }
  }

  private void measure(
      String url, FlowsEngine engine, McpSessions bare, Pairing p, Inventory inventory)
      throws Exception {
    String server = p.config().name();
    warmUp(
        plan.warmupSeconds(),
        () ->
            admitAndWait(
                url,
                engine,
                BenchFlows.MCP,
                1,
                i -> mcpInput(server, plan.mcpWarmupCalls()),
                inventory));
    var session = bare.session(McpServerConfigJson.write(p.config()));
    McpBench.bareCalls(session, 1, plan.warmupSeconds() / 2);
    BenchFlows.MCP_CALL_NANOS.clear();
    List<Long> interleaved = new java.util.concurrent.CopyOnWriteArrayList<>();
    McpStages.start();
    McpStages.interleave(() -> timedBareCall(session).ifPresent(interleaved::add));
    admitAndWait(
        url,
        engine,
        BenchFlows.MCP,
        1,
        i -> mcpInput(server, plan.mcpCallsPerFlow() * 3),
        inventory);
    List<Stats> stages = McpStages.stop();
    Stats durable = Stats.of(BenchFlows.MCP_CALL_NANOS);
    Baseline.Result b = McpBench.bareCalls(session, 1, plan.bareSeconds());
    report.mcpRevision(p.name(), durable, b.latency(), Stats.of(interleaved), stages);
    log(
        "  "
            + p.name()
            + " durable p50 "
            + Tables.f2(durable.p50())
            + " ms, bare p50 "
            + Tables.f2(b.latency().p50())
            + " ms back to back, "
            + Tables.f2(Stats.of(interleaved).p50())
            + " ms interleaved");
  }

  /**
   * One bare call between two durable ones, its duration in nanoseconds; a lost one (refused, or no
   * answer within the bare timeout) is counted as the bare loops count theirs and leaves no sample.
   * It never throws: it runs inside the body, which must go on to its next durable call.
   */
  private static Optional<Long> timedBareCall(dev.flows.kernel.mcp.McpTransportPort session) {
    long t = System.nanoTime();
    try {
      McpBench.bareCall(session);
      return Optional.of(System.nanoTime() - t);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (Exception lost) {
      McpBench.LOST_BARE_CALLS.increment();
      return Optional.empty();
    }
  }

  private static McpServerConfig.Stdio pinned(McpServerConfig.Stdio s, McpProtocol protocol) {
    return new McpServerConfig.Stdio(
        s.name(), s.command(), s.args(), s.envAllowlist(), s.env(), s.cwd(), protocol);
  }

  private static McpServerConfig.Http http(java.net.URI url, McpProtocol protocol) {
    return new McpServerConfig.Http(BenchFlows.HTTP, url, Map.of(), new McpAuth.None(), protocol);
  }
}
