package dev.flows.kernel.journal;

import dev.flows.kernel.spec.RunSpec;
import java.util.Optional;

/**
 * Admission of a run. The admission key makes start idempotent: the same key and spec return the
 * existing run; the same key with another spec is refused {@code run_admission_conflict}.
 */
public record StartRun(
    Optional<RunId> runId,
    String admissionKey,
    RunSpec spec,
    Optional<RunId> parentRunId,
    String createdBy) {
  public static StartRun of(String admissionKey, RunSpec spec) {
    return new StartRun(Optional.empty(), admissionKey, spec, Optional.empty(), "api");
  }
}
