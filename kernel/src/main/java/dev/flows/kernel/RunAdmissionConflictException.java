package dev.flows.kernel;

/** An admission key already admitted a run with a different spec. */
public final class RunAdmissionConflictException extends FlowsException {
  public RunAdmissionConflictException(String admissionKey, String existingRunId) {
    super(
        ErrorCode.RUN_ADMISSION_CONFLICT,
        "admission key already admitted run " + existingRunId + " with a different spec",
        admissionKey,
        "reuse the original spec with this key, or choose a new key");
  }
}
