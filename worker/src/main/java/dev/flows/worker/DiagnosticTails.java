package dev.flows.worker;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.StepOutcome;

/** Trajectory tails the worker writes: always an object with a typed {@code diagnostic}. */
public final class DiagnosticTails {
  private DiagnosticTails() {}

  public static ObjectNode of(WorkerDiagnostic diagnostic, String message) {
    ObjectNode tail = JsonNodeFactory.instance.objectNode();
    tail.put("diagnostic", diagnostic.wire());
    tail.put("message", message);
    return tail;
  }

  /** A retryable {@code worker_error} carrying {@code diagnostic}. */
  public static StepOutcome.Failed workerError(WorkerDiagnostic diagnostic, String message) {
    return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, of(diagnostic, message), true);
  }

  /**
   * A step failed for good by a refusal of the worker's own (its code as the diagnostic, with its
   * place and fix): not retried, the same work would be refused again.
   */
  public static StepOutcome.Failed refused(FlowsException e) {
    ObjectNode tail = JsonNodeFactory.instance.objectNode();
    tail.put("diagnostic", e.code().wire());
    tail.put("message", e.getMessage());
    e.place().ifPresent(p -> tail.put("place", p));
    e.fix().ifPresent(f -> tail.put("fix", f));
    return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, tail, false);
  }

  /** What an executor answers when its token was cancelled: retryable, with the cause. */
  public static StepOutcome.Failed canceled(CancellationToken token, ObjectNode tail) {
    tail.put("diagnostic", WorkerDiagnostic.CANCELED.wire());
    token.cause().ifPresent(c -> tail.put("cause", c.wire()));
    return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, tail, true);
  }
}
