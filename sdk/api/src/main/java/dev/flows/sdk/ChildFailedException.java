package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;

/**
 * An {@code f.*} call whose child run failed. The code is the child's diagnostic (e.g. {@code
 * mcp_tool_error}); a body may catch it and go on, or let it fail the flow.
 */
public final class ChildFailedException extends FlowsException {
  private final RunId child;
  private final JsonNode diagnostic;

  public ChildFailedException(
      ErrorCode code, String message, RunId child, JsonNode diagnostic, boolean retryable) {
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
