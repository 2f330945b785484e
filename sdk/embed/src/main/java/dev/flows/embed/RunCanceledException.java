package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.RunRef;

/** The run was canceled ({@code run_canceled}); {@link #reason()} is the reason journaled. */
public final class RunCanceledException extends RunNotSucceededException {
  private final String reason;

  RunCanceledException(RunRef runId, String reason) {
    super(
        ErrorCode.RUN_CANCELED,
        "run " + runId.value() + " was canceled: " + reason,
        runId,
        "run " + runId.value(),
        "start a new run (a new key) if the work is still wanted");
    this.reason = reason;
  }

  public String reason() {
    return reason;
  }
}
