package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.RunRef;

/**
 * An {@code f.*} call whose child run failed. The code is the child's diagnostic (e.g. {@code
 * mcp_tool_error}); a body may catch it and go on, or let it fail the flow.
 */
public final class ChildFailedException extends FlowsException {
  private final RunRef child;
  private final JsonNode diagnostic;

  public ChildFailedException(
      ErrorCode code, String message, RunRef child, JsonNode diagnostic, boolean retryable) {
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

  public RunRef child() {
    return child;
  }

  /** The child's trajectory tail: what was called, and what went wrong. */
  public JsonNode diagnostic() {
    return diagnostic;
  }
}
