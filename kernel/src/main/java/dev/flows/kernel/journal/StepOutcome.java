package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import java.time.Duration;

/** What a worker reports when an attempt ends. The journal decides the disposition. */
public sealed interface StepOutcome {
  /** The step did its work; {@code output} becomes the step's journaled result. */
  record Succeeded(JsonNode output) implements StepOutcome {}

  /**
   * The attempt failed. When {@code retryable} and iterations remain, the step is retried after a
   * durable backoff; otherwise it fails (reason {@code retries_exhausted} if it was retryable).
   */
  record Failed(CompletionReason reason, JsonNode trajectoryTail, boolean retryable)
      implements StepOutcome {}

  /** The step cannot go on without an operator (e.g. {@code effect_outcome_unknown}). */
  record Parked(CompletionReason reason, ErrorCode code, JsonNode trajectoryTail)
      implements StepOutcome {}

  /**
   * The body waits on its child run {@code awaiting} and gives its attempt back instead of holding
   * a lease, a thread and memory for the whole wait: the step becomes ready again (and its body is
   * replayed from the journal) as soon as that run leaves {@code running}, or {@code recheckAfter}
   * from now at the latest. A suspension does not use up one of the step's iterations. Refused
   * {@code invalid_input} when {@code awaiting} is not a child of the attempt's run.
   */
  record Suspended(RunId awaiting, Duration recheckAfter) implements StepOutcome {
    public Suspended {
      if (recheckAfter.isNegative() || recheckAfter.isZero()) {
        throw new IllegalArgumentException("recheckAfter must be positive, got " + recheckAfter);
      }
    }
  }
}
