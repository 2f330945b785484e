package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An {@code f.*} call whose child run failed. The code is the child's diagnostic (e.g. {@code
 * mcp_tool_error}); a body may catch it and go on, or let it fail the flow (the attempt then fails
 * with the child's diagnostic).
 */
public final class ChildFailedException extends FlowsError {
  private final RunId child;
  private final JsonNode diagnostic;

  public ChildFailedException(
      String code, String message, RunId child, JsonNode diagnostic, boolean retryable) {
    super(
        code,
        message,
        "child run " + child.value(),
        "see `flows runs show " + child.value() + "`",
        retryable,
        null);
    this.child = child;
    this.diagnostic = diagnostic;
  }

  public RunId child() {
    return child;
  }

  /** The child's trajectory tail: what was called, and what went wrong. */
  public JsonNode diagnostic() {
    return diagnostic;
  }
}
