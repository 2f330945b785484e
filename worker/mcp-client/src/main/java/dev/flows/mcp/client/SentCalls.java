package dev.flows.mcp.client;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests a 2025 transport has sent and not yet seen answered, by id, so a call given up can
 * be named to the server in {@code notifications/cancelled}, and an answer that could not be read
 * whole can still be matched to its request. The SDK hands the transport the very params object the
 * connection built, which is how the connection names it. An HTTP answer being read (a JSON body or
 * an SSE stream) is noted under the same params, so a call given up (at its timeout or by its
 * caller) also closes its answer: a body that drips forever then no longer keeps the thread reading
 * it, nor its connection, and an SSE stream so closed is not resumed.
 */
final class SentCalls {
  private final Map<Object, Object> paramsById = new ConcurrentHashMap<>();
  private final Map<String, Object> awaiting = new ConcurrentHashMap<>();
  private final Map<Object, InputStream> reading =
      java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());

  void sent(JSONRPCMessage m) {
    if (m instanceof McpSchema.JSONRPCRequest r && r.id() != null) {
      awaiting.put(String.valueOf(r.id()), r.id());
    }
    if (m instanceof McpSchema.JSONRPCRequest r
        && McpSchema.METHOD_TOOLS_CALL.equals(r.method())
        && r.params() != null) {
      paramsById.put(r.id(), r.params());
    }
  }

  void received(JSONRPCMessage m) {
    if (m instanceof McpSchema.JSONRPCResponse r && r.id() != null) {
      McpWireTimings.answered();
      paramsById.remove(r.id());
      awaiting.remove(String.valueOf(r.id()));
    }
  }

  static boolean isToolCall(JSONRPCMessage m) {
    return m instanceof McpSchema.JSONRPCRequest r
        && McpSchema.METHOD_TOOLS_CALL.equals(r.method());
  }

  /** The id of a request sent and not yet answered, as sent, given its text on the wire. */
  Optional<Object> awaited(String id) {
    return Optional.ofNullable(awaiting.get(id));
  }

  /**
   * {@code body}, noted as the answer being read to {@code m} when that is a tools/call (closing it
   * ends the note).
   */
  InputStream reading(JSONRPCMessage m, InputStream body) {
    if (!isToolCall(m) || ((McpSchema.JSONRPCRequest) m).params() == null) {
      return body;
    }
    Answer noted = new Answer(body, (McpSchema.JSONRPCRequest) m);
    reading.put(noted.request.params(), noted);
    return noted;
  }

  /** The answer being read to a tools/call: its stream, which knows whether the call is awaited. */
  final class Answer extends FilterInputStream {
    private final McpSchema.JSONRPCRequest request;

    private Answer(InputStream body, McpSchema.JSONRPCRequest request) {
      super(body);
      this.request = request;
    }

    /**
     * Whether its call waits for no answer any more (given up at its timeout or by its caller, or
     * answered): a stream of it that dropped is then not resumed.
     */
    boolean givenUp() {
      return !awaiting.containsKey(String.valueOf(request.id()));
    }

    @Override
    public void close() throws IOException {
      reading.remove(request.params(), this);
      super.close();
    }
  }

  /**
   * Sends, through {@code transport}, the cancel of the request sent with {@code params}, and
   * closes the answer to it being read, if any.
   */
  void cancel(
      Object params, String reason, io.modelcontextprotocol.spec.McpClientTransport transport) {
    // No longer awaited before its answer is closed, so the reader sees a call given up, not a
    // stream dropped, and does not resume it.
    paramsById.forEach(
        (id, p) -> {
          if (p == params) {
            awaiting.remove(String.valueOf(id));
          }
        });
    InputStream answer = reading.remove(params);
    if (answer != null) {
      try {
        answer.close();
      } catch (IOException e) {
        LOG.debug("closing a given-up answer: {}", e.toString());
      }
    }
    cancellation(params, reason)
        .ifPresent(
            n ->
                transport
                    .sendMessage(n)
                    .subscribe(v -> {}, e -> LOG.debug("cancel not sent: {}", e.toString())));
  }

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SentCalls.class);

  /** The cancel notification for the request sent with {@code params}, if it is still pending. */
  Optional<McpSchema.JSONRPCNotification> cancellation(Object params, String reason) {
    for (Map.Entry<Object, Object> e : paramsById.entrySet()) {
      if (e.getValue() == params && paramsById.remove(e.getKey(), params)) {
        return Optional.of(
            new McpSchema.JSONRPCNotification(
                McpSchema.JSONRPC_VERSION,
                "notifications/cancelled",
                Map.of("requestId", e.getKey(), "reason", reason)));
      }
    }
    return Optional.empty();
  }
}
