package dev.flows.examples.servers;

/** A refusal a tool answers as an {@code isError} result (bad arguments, unknown id). */
public final class ToolError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ToolError(String message) {
    super(message, null, false, false);
  }
}
