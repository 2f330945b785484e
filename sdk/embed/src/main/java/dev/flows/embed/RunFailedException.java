package dev.flows.embed;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.RunCompletionReason;
import dev.flows.kernel.journal.RunRef;
import java.util.Optional;

/**
 * The run failed. Its code is the failed step's diagnostic (e.g. {@code flow_failed} when the body
 * threw, {@code mcp_tool_error} when an MCP call it did not catch failed), as for {@code
 * ChildFailedException}; {@link #diagnostic()} is the step's whole trajectory tail.
 */
public final class RunFailedException extends RunNotSucceededException {
  private final RunCompletionReason reason;
  private final Optional<String> stepId;
  private final JsonNode diagnostic;

  RunFailedException(
      ErrorCode code,
      String message,
      RunRef runId,
      RunCompletionReason reason,
      Optional<String> stepId,
      JsonNode diagnostic) {
    super(
        code,
        message,
        runId,
        "run " + runId.value() + stepId.map(s -> " step " + s).orElse(""),
        "see `flows runs show " + runId.value() + "`; after a fix, `flows runs resume` retries it");
    this.reason = reason;
    this.stepId = stepId;
    this.diagnostic = diagnostic;
  }

  /** Why the run ended: {@code step_failed} or {@code budget_exceeded}. */
  public String reason() {
    return reason.wire();
  }

  /** The step that failed, when the journal names one. */
  public Optional<String> stepId() {
    return stepId;
  }

  /** The failed attempt's trajectory tail ({@code diagnostic}, {@code message}, ...). */
  public JsonNode diagnostic() {
    return diagnostic;
  }
}
