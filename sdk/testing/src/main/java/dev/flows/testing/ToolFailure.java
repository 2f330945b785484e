package dev.flows.testing;

/**
 * Thrown by a {@link FakeTool}'s handler: the call answers an {@code isError} result with this
 * message, as a server's tool that failed (the step fails {@code mcp_tool_error}).
 */
public final class ToolFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ToolFailure(String message) {
    super(message, null, false, false);
  }
}
