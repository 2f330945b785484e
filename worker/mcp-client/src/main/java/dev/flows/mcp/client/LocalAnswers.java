package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpDiagnostic;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Answers a transport makes up for a request whose real answer could not be used (too large, not
 * JSON): an error with a {@link McpDiagnostic} the connection maps back to its code, so the call
 * fails at once instead of waiting out its timeout.
 */
final class LocalAnswers {
  private static final Pattern ID =
      Pattern.compile("\"id\"\\s*:\\s*(?:\"((?:[^\"\\\\]|\\\\.){1,200})\"|(-?\\d{1,19}))");

  private LocalAnswers() {}

  /**
   * The answer to the pending request a broken message names: the first {@code "id"} in {@code
   * texts} (its head, then its tail) that is a request this transport is awaiting.
   */
  static Optional<JSONRPCResponse> forBroken(
      SentCalls sent, McpDiagnostic d, String message, String... texts) {
    return awaitedId(sent::awaited, texts).map(id -> error(id, d, message));
  }

  /**
   * The first {@code "id"} in {@code texts} that {@code awaited} knows (it answers the id as sent
   * for the id as written on the wire, without quotes).
   */
  static Optional<Object> awaitedId(
      java.util.function.Function<String, Optional<Object>> awaited, String... texts) {
    for (String text : texts) {
      Matcher m = ID.matcher(text);
      while (m.find()) {
        String wire = m.group(1) != null ? m.group(1) : m.group(2);
        Optional<Object> id = awaited.apply(wire);
        if (id.isPresent()) {
          return id;
        }
      }
    }
    return Optional.empty();
  }

  static JSONRPCResponse error(Object id, McpDiagnostic d, String message) {
    return new JSONRPCResponse(
        McpSchema.JSONRPC_VERSION,
        id,
        null,
        new JSONRPCResponse.JSONRPCError(
            StreamableHttpTransport.LOCAL_ERROR,
            message,
            Map.of(StreamableHttpTransport.DIAGNOSTIC_KEY, d.wire())));
  }

  static String tooLarge(long bytes, int limit) {
    return "the answer grew past maxResultBytes ("
        + limit
        + " bytes) and was cut off after "
        + bytes
        + " bytes";
  }
}
