package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.RunId;

/**
 * A run that will not give a result (not now, at least): it failed, it is parked until an operator
 * decides, or it was canceled. Sealed, so a caller can switch over the three.
 */
public abstract sealed class RunNotSucceededException extends FlowsError
    permits RunFailedException, RunParkedException, RunCanceledException {
  private final RunRef runId;

  RunNotSucceededException(ErrorCode code, String message, RunRef runId, String place, String fix) {
    // Asking again answers the same end: the run has to change first (a resume, a resolve).
    super(code.wire(), message, place, fix, false, null);
    this.runId = runId;
  }

  public RunId runId() {
    return Boundary.id(runId);
  }
}
