package dev.flows.ops.bench;

import dev.flows.embed.McpServer;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.mcp.testkit.JettyMcpServer;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.sdk.runtime.Inventory;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The two no-op servers: a stdio child JVM and Streamable HTTP on loopback. */
record McpServers(McpServerConfig.Stdio stdio, JettyMcpServer http, Inventory inventory)
    implements AutoCloseable {
  static McpServers start() throws Exception {
    McpServerConfig.Stdio stdio = Jvm.stdioServer(BenchFlows.STDIO, List.of(), Map.of());
    JettyMcpServer http = new JettyMcpServer(Optional.empty()).start();
    return new McpServers(stdio, http, Engines.inventory(stdio, Optional.of(http.url())));
  }

  McpServerConfig config(String server) {
    return server.equals(BenchFlows.STDIO)
        ? stdio
        : new McpServerConfig.Http(
            BenchFlows.HTTP, http.url(), Map.of(), new dev.flows.kernel.mcp.McpAuth.None());
  }

  /** The server as an embedding service gives it; both no-op servers dedupe by key. */
  McpServer embedded(String server) {
    McpServer s =
        server.equals(BenchFlows.STDIO)
            ? McpServer.stdio(stdio.name(), stdio.command(), stdio.args())
                .inheritEnv(stdio.envAllowlist())
                .env(stdio.env())
            : McpServer.http(BenchFlows.HTTP, http.url());
    return s.honouringIdempotencyKeys();
  }

  @Override
  public void close() throws Exception {
    http.close();
  }
}
