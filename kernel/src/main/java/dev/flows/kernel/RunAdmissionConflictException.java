package dev.flows.kernel;

/**
 * An admission met a run it is not the same admission as: its key admitted a run with a different
 * spec or under another run id, or its run id a run of another key that goes on.
 */
public final class RunAdmissionConflictException extends FlowsException {
  public RunAdmissionConflictException(String admissionKey, String existingRunId) {
    super(
        ErrorCode.RUN_ADMISSION_CONFLICT,
        "admission key already admitted run " + existingRunId + " with a different spec",
        admissionKey,
        "reuse the original spec with this key, or choose a new key");
  }

  /** A refusal with its own explanation, e.g. an admission that must be new and is not. */
  public RunAdmissionConflictException(String admissionKey, String existingRunId, String message) {
    super(
        ErrorCode.RUN_ADMISSION_CONFLICT,
        message + " (run " + existingRunId + ")",
        admissionKey,
        "await the existing run instead of admitting it again");
  }
}
