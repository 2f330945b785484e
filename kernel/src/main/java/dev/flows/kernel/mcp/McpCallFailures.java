package dev.flows.kernel.mcp;

import dev.flows.kernel.ErrorCode;
import java.util.Arrays;

/**
 * Which failures of an MCP call leave its outcome unknown: the request may have reached the server
 * and no answer says it was not performed. The journal parks such a call's step instead of failing
 * it ({@code effect_outcome_unknown}); every other failure is known: refused before the request was
 * sent, or answered.
 */
public final class McpCallFailures {
  private McpCallFailures() {}

  /** Whether a call that failed with the diagnostic named {@code wire} may have been performed. */
  public static boolean mayHaveBeenPerformed(String wire) {
    if (ErrorCode.TIMEOUT.wire().equals(wire)) {
      // The call's own timeout passed after the request went out; its cancel may come too late.
      return true;
    }
    return Arrays.stream(McpDiagnostic.values())
        .filter(d -> d.wire().equals(wire))
        .findFirst()
        .map(McpCallFailures::mayHaveBeenPerformed)
        .orElse(false);
  }

  /** Whether a call that failed with {@code d} may have been performed. */
  public static boolean mayHaveBeenPerformed(McpDiagnostic d) {
    return switch (d) {
      // No answer: lost with the connection while pending, or unreadable. A refusal before
      // sending because the connection is down reads the same, so it is taken as sent.
      case MCP_DISCONNECTED, MCP_RESULT_UNAVAILABLE -> true;
      // Before the request: the server never started, never finished the handshake, or refused
      // it or its credentials.
      case SPAWN_FAILED, HANDSHAKE_TIMEOUT, HANDSHAKE_REJECTED, AUTH_FAILED -> false;
      // Answered: an unknown tool, the tool's own error (the effect is confirmed), or an answer
      // past the size limit (the tool ran; the call is not retried, the failure is final).
      case MCP_UNKNOWN_TOOL, MCP_TOOL_ERROR, PAYLOAD_TOO_LARGE -> false;
    };
  }
}
