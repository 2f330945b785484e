package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpDiagnostic;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one line of a stdio server's stdout means: a message, an answer made up for a pending
 * request whose real answer was too large or not JSON, or nothing (garbage, blank lines and answers
 * to requests never sent are skipped).
 */
final class StdoutLines {
  private static final Logger LOG = LoggerFactory.getLogger(StdoutLines.class);

  private StdoutLines() {}

  static Optional<JSONRPCMessage> message(
      String server, BoundedLines.Line line, McpJsonMapper json, SentCalls sent, int limit) {
    return switch (line) {
      case BoundedLines.Line.Oversized o -> {
        LOG.warn("mcp server {}: a message of {} bytes was cut off", server, o.bytes());
        yield LocalAnswers.forBroken(
                sent,
                McpDiagnostic.PAYLOAD_TOO_LARGE,
                LocalAnswers.tooLarge(o.bytes(), limit),
                o.head(),
                o.tail())
            .map(JSONRPCMessage.class::cast);
      }
      case BoundedLines.Line.Text t -> parse(server, t.text(), json, sent);
    };
  }

  private static Optional<JSONRPCMessage> parse(
      String server, String text, McpJsonMapper json, SentCalls sent) {
    if (text.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.of(McpSchema.deserializeJsonRpcMessage(json, text));
    } catch (IOException | RuntimeException e) {
      LOG.warn("mcp server {}: ignoring a line that is not JSON-RPC", server);
      String head = text.substring(0, Math.min(text.length(), BoundedLines.KEPT_BYTES));
      String tail = text.substring(Math.max(0, text.length() - BoundedLines.KEPT_BYTES));
      return LocalAnswers.forBroken(
              sent,
              McpDiagnostic.MCP_RESULT_UNAVAILABLE,
              "the answer is not valid JSON-RPC: " + McpHttp.abbreviate(e.getMessage() + ""),
              head,
              tail)
          .map(JSONRPCMessage.class::cast);
    }
  }
}
