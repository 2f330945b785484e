package dev.flows.worker;

import dev.flows.kernel.journal.StepOutcome;

/** The effectful part of an attempt, run under {@link WorkerLease#withWorkerLease}. */
@FunctionalInterface
public interface LeasedWork {
  StepOutcome run(CancellationToken token) throws Exception;
}
