package dev.flows.mcp.client;

import static dev.flows.mcp.client.McpTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.ModernTestServer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tool-defined HTTP headers ({@code Mcp-Param-*}, SEP-2243) on 2026-07-28 servers: a call
 * written out by hand (durable input or tasks asked for, as every engine call asks) carries the
 * same headers the SDK's own call path sends. The test server's SDK refuses a call of its {@code
 * region} tool whose {@code Mcp-Param-Region} header is missing or does not match the argument.
 */
class ToolParamHeadersTest {
  private static final McpClientConfig LIMITS =
      McpClientConfig.DEFAULTS.withStopGrace(Duration.ofSeconds(2));

  /** The options the engine's f.mcp calls pass (McpToolExecutor). */
  private static final CallOptions ENGINE = CallOptions.PLAIN.withReissue(true).withDurableInput();

  /** Connections and servers, closed last-opened first. */
  private final Deque<AutoCloseable> opened = new ArrayDeque<>();

  @AfterEach
  void closeAll() throws Exception {
    while (!opened.isEmpty()) {
      opened.pop().close();
    }
  }

  private ModernTestServer httpServer() throws Exception {
    ModernTestServer s = ModernTestServer.http(0);
    opened.push(s);
    return s;
  }

  private McpConnection connect(McpServerConfig config) throws Exception {
    McpConnection c = McpTestSupport.connection(config, LIMITS);
    opened.push(c::stop);
    get(c.connect());
    return c;
  }

  private McpConnection connect(ModernTestServer server) throws Exception {
    return connect(new McpServerConfig.Http("web", server.url(), Map.of(), new McpAuth.None()));
  }

  private static Map<String, Object> key(String k) {
    return Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, k);
  }

  private static String text(ToolCallOutcome o) {
    assertThat(o).isInstanceOf(ToolCallOutcome.Completed.class);
    return ((ToolCallOutcome.Completed) o).result().text();
  }

  @Test
  void aCallAskingForDurableInputCarriesTheToolsMcpParamHeaderAndTheServerAcceptsIt()
      throws Exception {
    ModernTestServer server = httpServer();
    McpConnection c = connect(server);

    ToolCallOutcome o = get(c.call("region", Map.of("region", "us-west1"), key("r-1"), ENGINE));

    assertThat(text(o)).isEqualTo("us-west1");
    assertThat(server.regionHeaders()).containsExactly("Region=us-west1");
  }

  @Test
  void theHandWrittenCallSendsTheSameHeaderValuesAsTheSdksCallIncludingBase64Ones()
      throws Exception {
    ModernTestServer server = httpServer();
    McpConnection c = connect(server);
    List<String> values = List.of("eu-central", "Zürich 世界", " padded ", "=?base64?x?=");

    for (String v : values) {
      assertThat(text(get(c.call("region", Map.of("region", v), key("p-" + v), CallOptions.PLAIN))))
          .isEqualTo(v);
      assertThat(text(get(c.call("region", Map.of("region", v), key("d-" + v), ENGINE))))
          .isEqualTo(v);
    }

    List<String> seen = server.regionHeaders();
    assertThat(seen).hasSize(2 * values.size());
    for (int i = 0; i < values.size(); i++) {
      // The SDK's call, then the hand-written one, of the same value: the same header.
      assertThat(seen.get(2 * i + 1)).isEqualTo(seen.get(2 * i));
    }
    assertThat(seen.get(0)).isEqualTo("Region=eu-central");
    assertThat(seen.get(2)).startsWith("Region==?base64?").endsWith("?=");
    assertThat(seen.get(4)).startsWith("Region==?base64?");
    assertThat(seen.get(6)).startsWith("Region==?base64?").isNotEqualTo("Region==?base64?x?=");
  }

  @Test
  void aCallRefusedForHeadersOfAnOlderListingIsSentOnceMoreWithTheHeadersOfANewListing()
      throws Exception {
    ModernTestServer server = httpServer();
    McpConnection c = connect(server);
    server.renameRegionHeader("Zone");

    ToolCallOutcome o = get(c.call("region", Map.of("region", "us-east2"), key("r-2"), ENGINE));

    assertThat(text(o)).isEqualTo("us-east2");
    // First with the header of the listing made at connect, refused; then with the new one.
    assertThat(server.regionHeaders()).containsExactly("Region=us-east2", "Zone=us-east2");
    var attempts = ((ToolCallOutcome.Completed) o).result().wireAttempts();
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(1).resentBecause())
        .hasValueSatisfying(w -> assertThat(w).contains("HeaderMismatch"));
  }

  @Test
  void overStdioACallOfAToolWithAHeaderAnnotationStillSucceeds() throws Exception {
    McpConnection c = connect(Jvm.modernStdioServer("stdio"));

    assertThat(text(get(c.call("region", Map.of("region", "x"), key("s-1"), ENGINE))))
        .isEqualTo("x");
  }
}
