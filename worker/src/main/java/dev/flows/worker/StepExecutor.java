package dev.flows.worker;

import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.spec.StepKind;

/**
 * Runs the attempts of one step kind. An executor answers an outcome; it never completes the
 * attempt itself (the lease wrapper does, after checking the lease). When the token is cancelled it
 * stops what it started (children, connections) and answers promptly.
 */
public interface StepExecutor {
  StepKind kind();

  StepOutcome execute(StepExecution execution) throws InterruptedException;
}
