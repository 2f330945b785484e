package dev.flows.sdk.runtime;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.mcp.McpDiagnostic;

/** Preflight could not connect to a declared server and list its tools. */
public final class McpUnreachableException extends FlowsException {
  private final String server;
  private final McpDiagnostic cause;

  public McpUnreachableException(String server, McpDiagnostic cause, String detail, String place) {
    super(
        ErrorCode.MCP_UNREACHABLE,
        "server '" + server + "' is unreachable (cause: " + cause.wire() + "): " + detail,
        place,
        fixFor(cause),
        true,
        null);
    this.server = server;
    this.cause = cause;
  }

  private static String fixFor(McpDiagnostic cause) {
    return switch (cause) {
      case SPAWN_FAILED -> "check the server's command, args and cwd in flows.json";
      case HANDSHAKE_TIMEOUT ->
          "the server did not answer initialize in time; is it an MCP server?";
      case HANDSHAKE_REJECTED -> "the server refused the handshake; check its URL and logs";
      case AUTH_FAILED -> "check the credentials' environment variables and the auth mode";
      case MCP_DISCONNECTED, MCP_RESULT_UNAVAILABLE ->
          "check that the server is running and reachable";
      case MCP_UNKNOWN_TOOL, MCP_TOOL_ERROR -> "check the server";
      case PAYLOAD_TOO_LARGE -> "raise the server's limits.maxResultBytes in flows.json";
    };
  }

  public String server() {
    return server;
  }

  /** Why: spawn_failed, handshake_timeout, handshake_rejected, mcp_disconnected or auth_failed. */
  public McpDiagnostic unreachableCause() {
    return cause;
  }
}
