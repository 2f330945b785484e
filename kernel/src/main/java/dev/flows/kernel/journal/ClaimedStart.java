package dev.flows.kernel.journal;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.StepSpec;
import java.util.Optional;

/**
 * What {@link Admit.ClaimedHere} did: the admission as {@link Admit.Queued} answers it, and the
 * attempt it opened when it created the run (empty when the run id or admission key had admitted
 * the run already: nothing was claimed).
 */
public record ClaimedStart(StartedRun started, Optional<ClaimedAttempt> attempt) {

  /**
   * The one step a run admitted already claimed may have, or the refusal ({@code invalid_input})
   * checked before a journal writes anything: exactly one step, ready at creation (no
   * dependencies).
   */
  public static StepSpec onlyStep(StartRun r) {
    if (r.spec().steps().size() != 1
        || Lifecycle.created(r.spec().steps().getFirst()) != StepStatus.READY) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "a run admitted already claimed has exactly one step without dependencies; this spec has "
              + r.spec().steps().size(),
          r.admissionKey(),
          "admit the run queued and let a worker claim it");
    }
    return r.spec().steps().getFirst();
  }

  /**
   * The attempt {@link Admit.ClaimedHere} opens when it admits {@code r} as {@code runId}: attempt
   * 1 of its only step, its lease the step's {@code leaseMs}, else {@code lease}. {@code deadline}
   * stands for the deadline the journal's clock sets at admission.
   */
  public static ClaimedAttempt firstAttempt(
      StartRun r, RunRef runId, java.time.Duration lease, java.time.Instant deadline) {
    StepSpec step = onlyStep(r);
    LeaseToken token = new LeaseToken(runId, step.id(), 1, Keys.leaseId(runId, step.id(), 1));
    return new ClaimedAttempt(
        token,
        deadline,
        step.leaseMs().orElse(lease.toMillis()),
        step,
        Keys.idempotencyKey(runId, step.id()),
        r.parentRunId());
  }
}
