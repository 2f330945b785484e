package dev.flows.kernel.mcp;

import dev.flows.kernel.FlowsException;

/** A refusal from the MCP client, carrying its {@link McpDiagnostic} and the server's name. */
public final class McpException extends FlowsException {
  private final McpDiagnostic diagnostic;

  public McpException(McpDiagnostic diagnostic, String server, String message, String fix) {
    this(diagnostic, server, message, fix, null);
  }

  public McpException(
      McpDiagnostic diagnostic, String server, String message, String fix, Throwable cause) {
    super(
        diagnostic.errorCode(),
        message,
        "mcp server " + server,
        fix,
        diagnostic.retryable(),
        cause);
    this.diagnostic = diagnostic;
  }

  public McpDiagnostic diagnostic() {
    return diagnostic;
  }
}
