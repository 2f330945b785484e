package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;

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
}
