package dev.flows.kernel.journal;

import dev.flows.kernel.spec.RunSpec;
import java.util.Optional;

/**
 * Admission of a run. The admission key makes start idempotent: the same key and spec return the
 * existing run; the same key with another spec is refused {@code run_admission_conflict}. {@code
 * rerunOf} links a run started again (with the same input, maybe newer code) to the run it repeats;
 * it is provenance, not identity (not part of the spec or its hash). {@code queue} is the queue of
 * a root run ({@link Queues}); a child run is stored in its parent's queue whatever this says.
 */
public record StartRun(
    Optional<RunRef> runId,
    String admissionKey,
    RunSpec spec,
    Optional<RunRef> parentRunId,
    String createdBy,
    Optional<RunRef> rerunOf,
    String queue) {
  public StartRun {
    Queues.require(queue);
  }

  /** A run in the {@link Queues#DEFAULT default} queue (or its parent's). */
  public StartRun(
      Optional<RunRef> runId,
      String admissionKey,
      RunSpec spec,
      Optional<RunRef> parentRunId,
      String createdBy) {
    this(runId, admissionKey, spec, parentRunId, createdBy, Optional.empty(), Queues.DEFAULT);
  }

  /** A rerun of {@code rerunOf}, in the default queue (or its parent's). */
  public StartRun(
      Optional<RunRef> runId,
      String admissionKey,
      RunSpec spec,
      Optional<RunRef> parentRunId,
      String createdBy,
      Optional<RunRef> rerunOf) {
    this(runId, admissionKey, spec, parentRunId, createdBy, rerunOf, Queues.DEFAULT);
  }

  /** A run in queue {@code queue} (a root's; a child is in its parent's). */
  public StartRun(
      Optional<RunRef> runId,
      String admissionKey,
      RunSpec spec,
      Optional<RunRef> parentRunId,
      String createdBy,
      String queue) {
    this(runId, admissionKey, spec, parentRunId, createdBy, Optional.empty(), queue);
  }

  public static StartRun of(String admissionKey, RunSpec spec) {
    return new StartRun(Optional.empty(), admissionKey, spec, Optional.empty(), "api");
  }

  public StartRun inQueue(String q) {
    return new StartRun(runId, admissionKey, spec, parentRunId, createdBy, rerunOf, q);
  }

  /** This admission under run id {@code id}. */
  public StartRun withRunId(RunRef id) {
    return new StartRun(
        Optional.of(id), admissionKey, spec, parentRunId, createdBy, rerunOf, queue);
  }
}
