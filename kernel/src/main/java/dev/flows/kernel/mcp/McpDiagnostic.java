package dev.flows.kernel.mcp;

import dev.flows.kernel.ErrorCode;

/**
 * Every way talking to an MCP server can go wrong, as stable codes (SURFACE.md, "MCP client"). The
 * set is closed: callers switch over it exhaustively and never parse messages.
 */
public enum McpDiagnostic {
  /** The server process could not be started, or exited before it answered the handshake. */
  SPAWN_FAILED(ErrorCode.MCP_SPAWN_FAILED),
  /** The server did not complete initialize within the connect timeout. */
  HANDSHAKE_TIMEOUT(ErrorCode.MCP_HANDSHAKE_TIMEOUT),
  /** The server answered initialize (or the HTTP endpoint answered) with a refusal. */
  HANDSHAKE_REJECTED(ErrorCode.MCP_HANDSHAKE_REJECTED),
  /** Credentials were missing, refused, or could not be obtained. */
  AUTH_FAILED(ErrorCode.MCP_AUTH_FAILED),
  /** The connection is not usable: not connected, closed, or lost while a call was pending. */
  MCP_DISCONNECTED(ErrorCode.MCP_DISCONNECTED),
  /** The tool is not registered for this server, or the server does not know it. */
  MCP_UNKNOWN_TOOL(ErrorCode.MCP_UNKNOWN_TOOL),
  /** The tool ran and reported an error, or the server answered the call with a JSON-RPC error. */
  MCP_TOOL_ERROR(ErrorCode.MCP_TOOL_ERROR),
  /** The call was sent but no result arrived in time: the outcome on the server is unknown. */
  MCP_RESULT_UNAVAILABLE(ErrorCode.MCP_RESULT_UNAVAILABLE),
  /**
   * The server's answer grew past the largest message allowed ({@code maxResultBytes}); it was cut
   * off while it streamed. The tool may have run.
   */
  PAYLOAD_TOO_LARGE(ErrorCode.PAYLOAD_TOO_LARGE);

  private final ErrorCode code;

  McpDiagnostic(ErrorCode code) {
    this.code = code;
  }

  public ErrorCode errorCode() {
    return code;
  }

  public String wire() {
    return code.wire();
  }

  public boolean retryable() {
    return code.retryable();
  }
}
