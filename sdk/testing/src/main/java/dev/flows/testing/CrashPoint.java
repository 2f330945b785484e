package dev.flows.testing;

import dev.flows.worker.FaultPoint;

/**
 * Where {@link FlowsTestEnvironment#crashWorkerAt} makes the environment's worker die: the fault
 * points of the worker (SURFACE.md, "Fault points"), in process.
 */
public enum CrashPoint {
  /** An MCP effect was recorded; the tool has not been called. */
  AFTER_RECORD(FaultPoint.AFTER_RECORD),
  /** The tool call was sent; its result has not been read (the server may have performed it). */
  DURING_CALL(FaultPoint.DURING_CALL),
  /** The tool answered; the effect is not confirmed: its outcome is unknown to the journal. */
  AFTER_CALL_BEFORE_CONFIRM(FaultPoint.AFTER_CALL_BEFORE_CONFIRM),
  /** The effect is confirmed; the step is not completed. */
  AFTER_CONFIRM_BEFORE_COMPLETE(FaultPoint.AFTER_CONFIRM_BEFORE_COMPLETE),
  /** A flow body finished one call and is about to make the next. */
  BETWEEN_BODY_CALLS(FaultPoint.BETWEEN_BODY_CALLS);

  private final FaultPoint point;

  CrashPoint(FaultPoint point) {
    this.point = point;
  }

  FaultPoint point() {
    return point;
  }
}
