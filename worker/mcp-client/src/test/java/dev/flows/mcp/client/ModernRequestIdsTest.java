package dev.flows.mcp.client;

import static dev.flows.mcp.client.McpTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.mcp.testkit.Jvm;
import io.modelcontextprotocol.modern.JsonRpc;
import io.modelcontextprotocol.modern.McpSchema;
import io.modelcontextprotocol.modern.client.transport.McpTransportRequest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * The request ids a 2026-07-28 session notes per call: read from the params object as it was built
 * (not encoded again per call), and dropped when the call ends, so a long-lived session does not
 * grow with every call it ever made.
 */
class ModernRequestIdsTest {
  private final ModernRequestIds ids = new ModernRequestIds(request -> Flux.empty());

  private static McpTransportRequest call(String id, Object params) {
    return McpTransportRequest.builder(
            new JsonRpc.JSONRPCRequest("2.0", "tools/call", id, params), McpProtocol.MODERN)
        .name("noop")
        .build();
  }

  @Test
  void aCallsKeyIsReadFromItsParamsAsBuiltWithoutEncodingThem() {
    Map<String, Object> handWritten = new LinkedHashMap<>();
    handWritten.put("name", "noop");
    // An argument that does not encode as JSON: reading the key must not need to encode it.
    handWritten.put("arguments", Map.of("opaque", new Object()));
    handWritten.put("_meta", Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, "k-map"));
    ids.exchange(call("r1", handWritten)).blockLast();
    ids.exchange(
            call(
                "r2",
                McpSchema.CallToolRequest.builder("noop")
                    .meta(Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, "k-record"))
                    .build()))
        .blockLast();

    assertThat(ids.last("k-map")).contains("r1");
    assertThat(ids.last("k-record")).contains("r2");
  }

  @Test
  void aCallThatEndedIsForgotten() {
    ids.exchange(
            call(
                "r1",
                Map.of(
                    "name", "noop", "_meta", Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, "k"))))
        .blockLast();
    ids.forget("k");

    assertThat(ids.last("k")).isEmpty();
    assertThat(ids.tracked()).isZero();
  }

  @Test
  void aSessionKeepsNoRequestIdsOfCallsThatEnded() throws Exception {
    McpConnection c =
        McpTestSupport.connection(
            Jvm.modernStdioServer("modern"),
            McpClientConfig.DEFAULTS.withStopGrace(Duration.ofSeconds(2)));
    try {
      get(c.connect());
      for (int i = 0; i < 5; i++) {
        Map<String, Object> meta = Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, "k" + i);
        get(c.callTool("noop", Map.of(), meta));
        get(c.call("noop", Map.of(), meta, CallOptions.PLAIN.withDurableInput()));
      }
      var field = McpConnection.class.getDeclaredField("session");
      field.setAccessible(true);
      ModernSession session = (ModernSession) field.get(c);

      assertThat(session.trackedCalls()).isZero();
    } finally {
      c.stop();
    }
  }
}
