package dev.flows.mcp.client;

import static dev.flows.mcp.client.McpTestSupport.WAIT;
import static dev.flows.mcp.client.McpTestSupport.diagnosticOf;
import static dev.flows.mcp.client.McpTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolRegistry;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.ModernTestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One client for both eras: 2026-07-28 servers found by {@code server/discover}, 2025 servers by
 * the handshake after it, pins honoured; receipts of calls say which revision answered; a given-up
 * call is cancelled on the wire; a lost response is re-sent only when allowed.
 */
class ProtocolRevisionTest {
  private static final McpClientConfig LIMITS =
      McpClientConfig.DEFAULTS.withStopGrace(Duration.ofSeconds(2));

  @TempDir Path dir;
  private final List<McpConnection> connections = new ArrayList<>();
  private final List<AutoCloseable> servers = new ArrayList<>();

  @AfterEach
  void stopAll() throws Exception {
    connections.forEach(McpConnection::stop);
    for (AutoCloseable s : servers) {
      s.close();
    }
  }

  private McpConnection connect(McpServerConfig server) throws Exception {
    return connect(server, LIMITS);
  }

  private McpConnection connect(McpServerConfig server, McpClientConfig limits) throws Exception {
    McpConnection c = McpTestSupport.connection(server, limits);
    connections.add(c);
    get(c.connect());
    return c;
  }

  private List<JsonNode> lines(Path log) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    if (Files.exists(log)) {
      for (String l : Files.readAllLines(log)) {
        out.add(Jackson.mapper().readTree(l));
      }
    }
    return out;
  }

  private static List<String> methods(List<JsonNode> lines) {
    return lines.stream().map(l -> l.path("method").asText()).toList();
  }

  @Test
  void aStdioServerOnTheStatelessRevisionIsFoundByDiscoverAndAnswersInIt() throws Exception {
    Path log = dir.resolve("modern.log");
    McpConnection c = connect(Jvm.modernStdioServer("modern", "--log=" + log));

    ToolCallResult r =
        get(
            c.callTool(
                "add",
                Map.of("a", 2, "b", 3),
                Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, "k1")));

    assertThat(c.protocolVersion()).isEqualTo("2026-07-28");
    assertThat(r.text()).isEqualTo("5");
    assertThat(r.protocolVersion()).isEqualTo("2026-07-28");
    assertThat(methods(lines(log))).doesNotContain("initialize").contains("server/discover");
    JsonNode call =
        lines(log).stream()
            .filter(l -> l.path("method").asText().equals("tools/call"))
            .findFirst()
            .orElseThrow();
    assertThat(call.at("/params/_meta/io.modelcontextprotocol~1protocolVersion").asText())
        .isEqualTo("2026-07-28");
    assertThat(call.at("/params/_meta/dev.flows~1idempotency-key").asText()).isEqualTo("k1");
  }

  @Test
  void aStdioServerOn2025IsProbedOnceAndThenInitializedOnTheSameProcess() throws Exception {
    Path log = dir.resolve("legacy.log");
    McpConnection c = connect(Jvm.stdioServer("legacy", List.of(), Map.of(), "--log=" + log));

    ToolCallResult r = get(c.callTool("echo", Map.of("text", "hi"), Map.of()));

    assertThat(c.protocolVersion()).isEqualTo("2025-11-25");
    assertThat(r.protocolVersion()).isEqualTo("2025-11-25");
    // One process saw the probe and then the handshake.
    assertThat(methods(lines(log))).startsWith("server/discover", "initialize");
  }

  @Test
  void aServerPinnedTo2025IsNeverAskedServerDiscover() throws Exception {
    Path log = dir.resolve("pinned.log");
    McpConnection c =
        connect(
            Jvm.stdioServer("pinned", List.of(), Map.of(), "--log=" + log)
                .withProtocol(McpProtocol.V2025_11_25));

    get(c.callTool("echo", Map.of("text", "hi"), Map.of()));

    assertThat(methods(lines(log)))
        .doesNotContain("server/discover")
        .first()
        .isEqualTo("initialize");
  }

  @Test
  void aServerPinnedTo2026ThatOnlySpeaks2025IsRefusedWithHandshakeRejected() {
    McpServerConfig.Stdio pinned =
        Jvm.stdioServer("old", List.of(), Map.of()).withProtocol(McpProtocol.V2026_07_28);
    McpConnection c =
        new McpConnection(
            "old",
            LIMITS.withConnectTimeout(Duration.ofSeconds(20)),
            McpTransports.factory(pinned, LIMITS, McpCredentials.fromEnvironment()),
            new ToolRegistry(),
            new SplittableRandom(3));
    connections.add(c);

    assertThat(diagnosticOf(c.connect())).isEqualTo(McpDiagnostic.HANDSHAKE_REJECTED);
  }

  @Test
  void anHttpServerOnTheStatelessRevisionGetsTheStandardHeadersAndMetaOnEveryRequest()
      throws Exception {
    ModernTestServer server = ModernTestServer.http(0);
    servers.add(server);
    McpConnection c =
        connect(new McpServerConfig.Http("web", server.url(), Map.of(), new McpAuth.None()));

    ToolCallResult r =
        get(
            c.callTool(
                "meta",
                Map.of(),
                Map.of(
                    McpTransportPort.TRACEPARENT_META,
                    "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")));

    assertThat(c.protocolVersion()).isEqualTo("2026-07-28");
    assertThat(r.protocolVersion()).isEqualTo("2026-07-28");
    // The server's SDK answers only requests whose Mcp-Method header matches the body; the
    // tool answers the _meta it was given.
    assertThat(r.text())
        .contains("traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .contains("io.modelcontextprotocol/protocolVersion=2026-07-28");
  }

  @Test
  void cancellingAStdioCallOn2025SendsNotificationsCancelledWithItsRequestId() throws Exception {
    Path log = dir.resolve("cancel-legacy.log");
    McpConnection c = connect(Jvm.stdioServer("slow", List.of(), Map.of(), "--log=" + log));

    assertCancelledOnTheWire(c, log);
  }

  @Test
  void cancellingAStdioCallOn2026SendsNotificationsCancelledWithItsRequestId() throws Exception {
    Path log = dir.resolve("cancel-modern.log");
    McpConnection c = connect(Jvm.modernStdioServer("slow", "--log=" + log));

    assertCancelledOnTheWire(c, log);
  }

  @Test
  void aStdioCallThatTimesOutOn2025IsCancelledOnTheWireToo() throws Exception {
    Path log = dir.resolve("timeout.log");
    McpConnection c =
        connect(
            Jvm.stdioServer("slow", List.of(), Map.of(), "--log=" + log),
            LIMITS.withCallTimeout(Duration.ofSeconds(2)));

    assertThat(diagnosticOf(c.callTool("sleep", Map.of("ms", 20_000), Map.of())))
        .isEqualTo(McpDiagnostic.MCP_RESULT_UNAVAILABLE);

    await().atMost(WAIT).until(() -> methods(lines(log)).contains("notifications/cancelled"));
  }

  private void assertCancelledOnTheWire(McpConnection c, Path log) throws Exception {
    CompletableFuture<ToolCallResult> call =
        c.callTool(
            "sleep", Map.of("ms", 20_000), Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, "slow-1"));
    await().atMost(WAIT).until(() -> methods(lines(log)).contains("tools/call"));
    JsonNode sent =
        lines(log).stream()
            .filter(l -> l.path("method").asText().equals("tools/call"))
            .findFirst()
            .orElseThrow();

    call.cancel(true);

    await().atMost(WAIT).until(() -> methods(lines(log)).contains("notifications/cancelled"));
    JsonNode cancel =
        lines(log).stream()
            .filter(l -> l.path("method").asText().equals("notifications/cancelled"))
            .findFirst()
            .orElseThrow();
    assertThat(cancel.at("/params/requestId")).isEqualTo(sent.path("id"));
  }

  @Test
  void cancellingAnHttpCallOn2026ClosesItsResponseStream() throws Exception {
    ModernTestServer server = ModernTestServer.http(0);
    servers.add(server);
    McpConnection c =
        connect(new McpServerConfig.Http("web", server.url(), Map.of(), new McpAuth.None()));
    CompletableFuture<ToolCallResult> call =
        c.callTool(
            "sleep", Map.of("ms", 20_000), Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, "s"));
    await().atMost(WAIT).until(() -> server.calls().contains("tools/call"));
    int closedBefore = server.clientClosedConnections();

    call.cancel(true);

    // The server still sleeps for 20 s: a connection closed now is the client giving up.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.clientClosedConnections() > closedBefore);
  }

  @Test
  void aLostResponseIsReissuedWithANewRequestIdAndTheSameKeyWhenTheCallMayBeRepeated()
      throws Exception {
    ModernTestServer server = ModernTestServer.http(1);
    servers.add(server);
    McpConnection c =
        connect(new McpServerConfig.Http("web", server.url(), Map.of(), new McpAuth.None()));
    Path ledger = dir.resolve("ledger");

    ToolCallResult r =
        get(
            c.callTool(
                "ledger",
                Map.of("file", ledger.toString()),
                Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, "key-7"),
                true));

    assertThat(r.wireAttempts()).hasSize(2);
    assertThat(r.wireAttempts().get(0).requestId())
        .isNotEqualTo(r.wireAttempts().get(1).requestId());
    assertThat(r.wireAttempts().get(1).resentBecause()).isPresent();
    // The server saw the same key twice and performed the call once.
    assertThat(Files.readAllLines(ledger)).containsExactly("key-7");
    assertThat(r.text()).isEqualTo("1");
  }

  @Test
  void aLostResponseIsNotReissuedWhenTheCallMayNotBeRepeatedAndItsOutcomeIsUnknown()
      throws Exception {
    ModernTestServer server = ModernTestServer.http(1);
    servers.add(server);
    McpConnection c =
        connect(new McpServerConfig.Http("web", server.url(), Map.of(), new McpAuth.None()));
    Path ledger = dir.resolve("ledger");

    CompletableFuture<ToolCallResult> call =
        c.callTool(
            "ledger",
            Map.of("file", ledger.toString()),
            Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, "key-8"),
            false);

    assertThat(diagnosticOf(call)).isEqualTo(McpDiagnostic.MCP_RESULT_UNAVAILABLE);
    assertThat(Files.readAllLines(ledger)).containsExactly("key-8");
  }
}
