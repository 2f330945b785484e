package dev.flows.kernel.lifecycle;

import static dev.flows.kernel.lifecycle.RunStatus.CANCELED;
import static dev.flows.kernel.lifecycle.RunStatus.FAILED;
import static dev.flows.kernel.lifecycle.RunStatus.PARKED;
import static dev.flows.kernel.lifecycle.RunStatus.RUNNING;
import static dev.flows.kernel.lifecycle.RunStatus.SUCCEEDED;

import java.util.Optional;

/**
 * The declared run transition table. {@code from} is empty for the two ways a run comes to exist:
 * spawned, or tombstoned by a cancel that arrived before its start.
 */
public enum RunTransition {
  SPAWNED(null, RUNNING),
  TOMBSTONED(null, CANCELED),
  ALL_STEPS_SUCCEEDED(RUNNING, SUCCEEDED),
  STEP_FAILED(RUNNING, FAILED),
  STEP_PARKED(RUNNING, PARKED),
  UNPARKED(PARKED, RUNNING),
  RESUMED(FAILED, RUNNING),
  CANCELED_RUNNING(RUNNING, CANCELED),
  CANCELED_PARKED(PARKED, CANCELED);

  private final RunStatus from;
  private final RunStatus to;

  RunTransition(RunStatus from, RunStatus to) {
    this.from = from;
    this.to = to;
  }

  public Optional<RunStatus> from() {
    return Optional.ofNullable(from);
  }

  public RunStatus to() {
    return to;
  }
}
