package dev.flows.mcp.client;

import static dev.flows.mcp.client.McpTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.mcp.testkit.JettyMcpServer;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.ModernTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A call's three wire instants reach an installed probe once each and in order, on both revisions
 * and both transports, on the SDK's path and the hand-written one; none reach it once uninstalled.
 */
class McpWireTimingsTest {
  private static final McpClientConfig LIMITS =
      McpClientConfig.DEFAULTS.withStopGrace(Duration.ofSeconds(2));

  private final List<McpConnection> connections = new ArrayList<>();
  private final List<AutoCloseable> servers = new ArrayList<>();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final List<Long> instants = new CopyOnWriteArrayList<>();

  private final McpWireTimings.Probe probe =
      new McpWireTimings.Probe() {
        @Override
        public void sent(long nanos) {
          note("sent", nanos);
        }

        @Override
        public void answered(long nanos) {
          note("answered", nanos);
        }

        @Override
        public void delivered(long nanos) {
          note("delivered", nanos);
        }
      };

  private void note(String what, long nanos) {
    seen.add(what);
    instants.add(nanos);
  }

  @AfterEach
  void stopAll() throws Exception {
    McpWireTimings.uninstall();
    connections.forEach(McpConnection::stop);
    for (AutoCloseable s : servers) {
      s.close();
    }
  }

  private McpConnection connect(McpServerConfig server) throws Exception {
    McpConnection c = McpTestSupport.connection(server, LIMITS);
    connections.add(c);
    get(c.connect());
    return c;
  }

  private void callsAreTimedInOrder(McpConnection c) throws Exception {
    McpWireTimings.install(probe);
    Map<String, Object> meta = Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, "k1");
    get(c.callTool("noop", Map.of(), meta));
    get(c.call("noop", Map.of(), meta, CallOptions.PLAIN.withDurableInput()));

    assertThat(seen)
        .containsExactly("sent", "answered", "delivered", "sent", "answered", "delivered");
    assertThat(instants).isSorted();

    McpWireTimings.uninstall();
    get(c.call("noop", Map.of(), meta, CallOptions.PLAIN.withDurableInput()));
    assertThat(seen).hasSize(6);
  }

  @Test
  void aCallTo2025ServersIsTimedOnTheWireOverStdioAndHttp() throws Exception {
    callsAreTimedInOrder(connect(Jvm.stdioServer("legacy", List.of(), Map.of())));
    seen.clear();
    instants.clear();
    JettyMcpServer http = new JettyMcpServer(Optional.empty()).start();
    servers.add(http);
    callsAreTimedInOrder(
        connect(
            new McpServerConfig.Http(
                "legacy-http", http.url(), Map.of(), new McpAuth.None(), McpProtocol.V2025_11_25)));
  }

  @Test
  void aCallTo2026ServersIsTimedOnTheWireOverStdioAndHttp() throws Exception {
    callsAreTimedInOrder(connect(Jvm.modernStdioServer("modern")));
    seen.clear();
    instants.clear();
    ModernTestServer http = ModernTestServer.http(0);
    servers.add(http);
    callsAreTimedInOrder(
        connect(
            new McpServerConfig.Http(
                "modern-http",
                http.directUrl(),
                Map.of(),
                new McpAuth.None(),
                McpProtocol.V2026_07_28)));
  }
}
