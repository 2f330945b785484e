package dev.flows.embed;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.RunId;

/**
 * The run is parked: a step stopped until an operator decides (today: an effect whose outcome is
 * unknown and that is not safe to send again). Parked is not an end: once the step is resolved or
 * the run resumed, {@code result} waits again. The code is the parked step's diagnostic ({@code
 * effect_outcome_unknown}); {@link #parkedRun()} and {@link #stepId()} name the step to resolve,
 * which is the call's child run when the body parked waiting on one.
 */
public final class RunParkedException extends RunNotSucceededException {
  private final RunRef parkedRun;
  private final String stepId;
  private final JsonNode diagnostic;

  RunParkedException(
      ErrorCode code,
      String message,
      RunRef runId,
      RunRef parkedRun,
      String stepId,
      JsonNode diagnostic) {
    super(
        code,
        message,
        runId,
        "run " + parkedRun.value() + " step " + stepId,
        "decide with `flows runs resolve "
            + parkedRun.value()
            + " "
            + stepId
            + " --performed OUTPUT_JSON | --not-performed`, then wait again");
    this.parkedRun = parkedRun;
    this.stepId = stepId;
    this.diagnostic = diagnostic;
  }

  /** The run whose step is parked: the root itself, or the child run of the call it waits on. */
  public RunId parkedRun() {
    return Boundary.id(parkedRun);
  }

  /** The parked step of {@link #parkedRun()}. */
  public String stepId() {
    return stepId;
  }

  /** The parked attempt's trajectory tail: what was called, and why it parked. */
  public JsonNode diagnostic() {
    return diagnostic;
  }
}
