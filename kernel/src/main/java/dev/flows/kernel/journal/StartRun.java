package dev.flows.kernel.journal;

import dev.flows.kernel.spec.RunSpec;
import java.util.Optional;

/**
 * Admission of a run. The admission key makes start idempotent: the same key and spec return the
 * existing run; the same key with another spec is refused {@code run_admission_conflict}. {@code
 * rerunOf} links a run started again (with the same input, maybe newer code) to the run it repeats;
 * it is provenance, not identity (not part of the spec or its hash).
 */
public record StartRun(
    Optional<RunId> runId,
    String admissionKey,
    RunSpec spec,
    Optional<RunId> parentRunId,
    String createdBy,
    Optional<RunId> rerunOf) {
  public StartRun(
      Optional<RunId> runId,
      String admissionKey,
      RunSpec spec,
      Optional<RunId> parentRunId,
      String createdBy) {
    this(runId, admissionKey, spec, parentRunId, createdBy, Optional.empty());
  }

  public static StartRun of(String admissionKey, RunSpec spec) {
    return new StartRun(Optional.empty(), admissionKey, spec, Optional.empty(), "api");
  }
}
