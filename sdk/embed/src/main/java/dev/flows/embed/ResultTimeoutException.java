package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.RunId;
import java.time.Duration;

/**
 * The run did not end within the time {@code result} was given ({@code result_timeout}, retryable):
 * the run goes on; wait again, or re-attach later with {@code Flows.handle}.
 */
public final class ResultTimeoutException extends FlowsError {
  private final RunRef runId;

  ResultTimeoutException(RunRef runId, Duration waited) {
    super(
        ErrorCode.RESULT_TIMEOUT.wire(),
        "run " + runId.value() + " did not end within " + waited,
        "run " + runId.value(),
        "wait again with result(...), or re-attach later with Flows.handle(runId)",
        true,
        null);
    this.runId = runId;
  }

  public RunId runId() {
    return Boundary.id(runId);
  }
}
