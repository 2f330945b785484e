package dev.flows.worker;

import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionAck;
import java.time.Duration;

/**
 * Told of each attempt a {@link Worker} runs: when it starts on the worker (claimed, or admitted
 * claimed) and how it ended. Called on the attempt's thread; it should be quick and must not throw
 * (a throw is logged and the attempt goes on).
 */
public interface AttemptObserver {
  /** Observes nothing. */
  AttemptObserver NONE =
      new AttemptObserver() {
        @Override
        public void claimed(ClaimedAttempt attempt) {}

        @Override
        public void ended(ClaimedAttempt attempt, Ending ending, Duration took) {}
      };

  void claimed(ClaimedAttempt attempt);

  void ended(ClaimedAttempt attempt, Ending ending, Duration took);

  /** How an attempt ended on this worker. */
  sealed interface Ending {
    /** The journal took its completion. */
    record Completed(CompletionAck ack) implements Ending {}

    /** Its lease was lost (another worker may take the step over). */
    record LeaseLost(String reason) implements Ending {}

    /** It ended without a completion (a defect; the lease expires and the step is retried). */
    record Failed(String message) implements Ending {}
  }
}
