package dev.flows.kernel.lifecycle;

import static dev.flows.kernel.lifecycle.StepStatus.CANCELED;
import static dev.flows.kernel.lifecycle.StepStatus.FAILED;
import static dev.flows.kernel.lifecycle.StepStatus.PARKED;
import static dev.flows.kernel.lifecycle.StepStatus.READY;
import static dev.flows.kernel.lifecycle.StepStatus.RUNNING;
import static dev.flows.kernel.lifecycle.StepStatus.SUCCEEDED;
import static dev.flows.kernel.lifecycle.StepStatus.WAITING;

/**
 * The declared step transition table. A journal changes a step's status only through {@link
 * Lifecycle#step}, which refuses any pair not listed here; the contract suite fails if one of these
 * is never exercised.
 */
public enum StepTransition {
  DEPENDENCIES_MET(WAITING, READY),
  CLAIMED(READY, RUNNING),
  COMPLETED_SUCCESS(RUNNING, SUCCEEDED),
  COMPLETED_RETRY(RUNNING, READY),
  COMPLETED_FAILED(RUNNING, FAILED),
  COMPLETED_PARKED(RUNNING, PARKED),
  /** The body waits on a child run without holding its attempt (StepOutcome.Suspended). */
  SUSPENDED(RUNNING, READY),
  LEASE_EXPIRED_RETRY(RUNNING, READY),
  LEASE_EXPIRED_EXHAUSTED(RUNNING, FAILED),
  /**
   * The last attempt's lease ran out while an effect of the step was recorded and never confirmed:
   * parked for an operator, since the effect may have happened.
   */
  LEASE_EXPIRED_PARKED(RUNNING, PARKED),
  RESOLVED(PARKED, READY),
  RESOLVED_PERFORMED(PARKED, SUCCEEDED),
  RESUMED(FAILED, READY),
  CANCELED_WAITING(WAITING, CANCELED),
  CANCELED_READY(READY, CANCELED),
  CANCELED_RUNNING(RUNNING, CANCELED),
  CANCELED_PARKED(PARKED, CANCELED);

  private final StepStatus from;
  private final StepStatus to;

  StepTransition(StepStatus from, StepStatus to) {
    this.from = from;
    this.to = to;
  }

  public StepStatus from() {
    return from;
  }

  public StepStatus to() {
    return to;
  }
}
