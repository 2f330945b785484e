package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.mcp.McpTransportPort;
import io.modelcontextprotocol.modern.McpSchema;
import io.modelcontextprotocol.modern.client.transport.McpClientTransport;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * The SDK's transport, noting the JSON-RPC id of each tools/call by the idempotency key in its
 * {@code _meta}, so a call can say which requests went out for it.
 */
final class ModernRequestIds implements McpClientTransport {
  private static final ObjectMapper TREE = dev.flows.kernel.json.Jackson.mapper();
  private final McpClientTransport delegate;
  private final Map<String, String> lastByKey = new java.util.concurrent.ConcurrentHashMap<>();

  ModernRequestIds(McpClientTransport delegate) {
    this.delegate = delegate;
  }

  @Override
  public reactor.core.publisher.Flux<io.modelcontextprotocol.modern.JsonRpc.JSONRPCMessage>
      exchange(io.modelcontextprotocol.modern.client.transport.McpTransportRequest request) {
    var m = request.message();
    if (!"tools/call".equals(m.method())) {
      return delegate.exchange(request);
    }
    idempotencyKey(m.params()).ifPresent(k -> lastByKey.put(k, String.valueOf(m.id())));
    if (!McpWireTimings.on()) {
      return delegate.exchange(request);
    }
    McpWireTimings.sent();
    return delegate.exchange(request).doOnNext(ModernRequestIds::answered);
  }

  private static void answered(io.modelcontextprotocol.modern.JsonRpc.JSONRPCMessage m) {
    if (m instanceof io.modelcontextprotocol.modern.JsonRpc.JSONRPCResponse) {
      McpWireTimings.answered();
    }
  }

  /**
   * The idempotency key in a tools/call's {@code _meta}, read from the params object as the SDK (a
   * request record) or {@link ModernRequests} (a map) built it, without encoding it again.
   */
  static Optional<String> idempotencyKey(Object params) {
    Object meta =
        switch (params) {
          case McpSchema.CallToolRequest r -> r.meta();
          case Map<?, ?> map -> map.get("_meta");
          case null -> null;
          default -> {
            JsonNode k = params(params).path("_meta").path(McpTransportPort.IDEMPOTENCY_KEY_META);
            yield k.isTextual() ? Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, k.asText()) : null;
          }
        };
    return meta instanceof Map<?, ?> m
            && m.get(McpTransportPort.IDEMPOTENCY_KEY_META) instanceof String key
        ? Optional.of(key)
        : Optional.empty();
  }

  /** The call sent with {@code key} ended: its request ids are no longer asked for. */
  void forget(String key) {
    if (key != null) {
      lastByKey.remove(key);
    }
  }

  /** How many calls' request ids are kept: those of the calls still going. */
  int tracked() {
    return lastByKey.size();
  }

  @Override
  public boolean mirrorsToolParams() {
    return delegate.mirrorsToolParams();
  }

  Optional<String> last(String key) {
    return key == null ? Optional.empty() : Optional.ofNullable(lastByKey.get(key));
  }

  private static JsonNode params(Object params) {
    try {
      return TREE.readTree(Json.MAPPER.writeValueAsString(params));
    } catch (IOException e) {
      return JsonNodeFactory.instance.objectNode();
    }
  }
}
