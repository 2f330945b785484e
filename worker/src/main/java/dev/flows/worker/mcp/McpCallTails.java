package dev.flows.worker.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.worker.WorkerConfig;
import java.nio.charset.StandardCharsets;

/**
 * The trajectory tail of a failed MCP call: what the step's failure journals (server, tool, input,
 * key, diagnostic, message), capped so one huge argument or message cannot bloat the journal, and
 * whether a diagnostic is retried by default.
 */
final class McpCallTails {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final int TAIL_CAP_BYTES = WorkerConfig.DEFAULT_TAIL_CAP_BYTES;
  private static final String TYPE = McpToolExecutor.TYPE;

  private McpCallTails() {}

  /**
   * A failure with {@code diagnostic}: one that may be retried ({@code retryable}: a transport
   * failure after the call may have been sent, so the next attempt's election decides whether to
   * send it again) is, unless the call's retry policy says otherwise.
   */
  static StepOutcome failed(
      McpCallInstruction in, String key, String diagnostic, boolean retryable, String message) {
    return new StepOutcome.Failed(
        CompletionReason.WORKER_ERROR,
        capTail(tail(in.server(), in.tool(), in.input(), key, diagnostic, message)),
        retryable && in.retries(diagnostic));
  }

  /** Whether a failure with {@code d} is retried by default. */
  static boolean retried(McpDiagnostic d) {
    return switch (d) {
      case SPAWN_FAILED, HANDSHAKE_TIMEOUT, MCP_DISCONNECTED, MCP_RESULT_UNAVAILABLE -> true;
      case HANDSHAKE_REJECTED, AUTH_FAILED, MCP_UNKNOWN_TOOL, MCP_TOOL_ERROR, PAYLOAD_TOO_LARGE ->
          false;
    };
  }

  static ObjectNode tail(
      String server, String tool, JsonNode input, String key, String diagnostic, String message) {
    ObjectNode t = JSON.objectNode().put("type", TYPE).put("server", server).put("tool", tool);
    t.set("input", input);
    t.put("idempotencyKey", key).put("diagnostic", diagnostic).put("message", message);
    return t;
  }

  static ObjectNode capTail(ObjectNode t) {
    if (t.toString().getBytes(StandardCharsets.UTF_8).length <= TAIL_CAP_BYTES) {
      return t;
    }
    t.remove("output");
    if (t.toString().getBytes(StandardCharsets.UTF_8).length > TAIL_CAP_BYTES) {
      t.put("input", cap(t.path("input").toString(), TAIL_CAP_BYTES / 2));
      t.put("message", cap(t.path("message").asText(), TAIL_CAP_BYTES / 4));
    }
    t.put("truncated", true);
    return t;
  }

  static String cap(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }
}
