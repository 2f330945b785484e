package dev.flows.mcp.client.bench;

import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolRegistry;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpPool;
import dev.flows.mcp.testkit.JettyMcpServer;
import dev.flows.mcp.testkit.Jvm;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Sequential calls/s of the no-op tool through our port versus the bare SDK client, against the
 * same server build in the same run, over stdio and over Streamable HTTP. Rounds alternate between
 * the two clients so that machine load drifts hit both alike. Args: [calls per round] [rounds].
 */
public final class McpCallBench {
  private McpCallBench() {}

  interface Caller {
    void call() throws Exception;
  }

  public static void main(String[] args) throws Exception {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int warmup = Math.max(200, calls / 4);
    McpClientConfig limits = McpClientConfig.DEFAULTS;

    McpServerConfig.Stdio stdio = Jvm.stdioServer("bench", List.of(), Map.of());
    try (JettyMcpServer jetty = new JettyMcpServer(Optional.empty()).start();
        McpPool pool =
            new McpPool(
                List.of(
                    stdio,
                    new McpServerConfig.Http(
                        "benchhttp", jetty.url(), Map.of(), new McpAuth.None())),
                limits,
                McpCredentials.fromEnvironment(),
                new ToolRegistry())) {
      pool.connectAll().get(120, TimeUnit.SECONDS);
      McpTransportPort portStdio = pool.connections().get("bench");
      McpTransportPort portHttp = pool.connections().get("benchhttp");

      McpSyncClient sdkStdio =
          McpClient.sync(
                  new StdioClientTransport(
                      ServerParameters.builder(stdio.command()).args(stdio.args()).build(),
                      McpJsonDefaults.getMapper()))
              .requestTimeout(Duration.ofSeconds(60))
              .build();
      sdkStdio.initialize();
      McpSyncClient sdkHttp =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + jetty.port())
                      .endpoint("/mcp")
                      .build())
              .requestTimeout(Duration.ofSeconds(60))
              .build();
      sdkHttp.initialize();
      McpSchema.CallToolRequest noop = new McpSchema.CallToolRequest("noop", Map.of());

      report(
          "stdio",
          () -> portStdio.callTool("noop", Map.of()).get(60, TimeUnit.SECONDS),
          () -> sdkStdio.callTool(noop),
          calls,
          rounds,
          warmup);
      report(
          "http",
          () -> portHttp.callTool("noop", Map.of()).get(60, TimeUnit.SECONDS),
          () -> sdkHttp.callTool(noop),
          calls,
          rounds,
          warmup);
      sdkStdio.closeGracefully();
      sdkHttp.closeGracefully();
    }
    System.exit(0);
  }

  private static void report(
      String transport, Caller port, Caller sdk, int calls, int rounds, int warmup)
      throws Exception {
    run(port, warmup);
    run(sdk, warmup);
    List<Double> p = new ArrayList<>();
    List<Double> s = new ArrayList<>();
    for (int r = 0; r < rounds; r++) {
      p.add(run(port, calls));
      s.add(run(sdk, calls));
    }
    System.out.printf(
        "%-5s port   calls/s per round %s median %.0f%n", transport, fmt(p), median(p));
    System.out.printf(
        "%-5s sdk    calls/s per round %s median %.0f%n", transport, fmt(s), median(s));
  }

  private static double run(Caller c, int n) throws Exception {
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      c.call();
    }
    return n / ((System.nanoTime() - t0) / 1e9);
  }

  private static String fmt(List<Double> xs) {
    return xs.stream().map(x -> String.format("%.0f", x)).toList().toString();
  }

  private static double median(List<Double> xs) {
    List<Double> sorted = xs.stream().sorted().toList();
    return sorted.get(sorted.size() / 2);
  }
}
