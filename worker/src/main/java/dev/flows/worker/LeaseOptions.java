package dev.flows.worker;

import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.StepOutcome;
import java.util.Optional;

/**
 * How {@link WorkerLease#withWorkerLease(dev.flows.kernel.journal.ClaimedAttempt,
 * java.time.Instant, CancellationToken, LeaseOptions, LeasedWork)} runs an attempt. {@link
 * #defaults()} is what the four-argument overload does.
 *
 * @param renewBeforeWork renew once before the work starts. Turn it off only when the lease was
 *     granted in the same transaction as a fenced write the caller just made: that write already
 *     proved the lease live by the journal's clock, and the local deadline still counts from the
 *     claim's send time, so nothing is assumed beyond what the journal answered
 * @param completer ends the attempt instead of {@link dev.flows.kernel.journal.Journal#complete}
 *     (e.g. a verb that writes more in the same transaction); it must be fenced like {@code
 *     complete}: a {@code lease_conflict} or {@code run_terminal} refusal is reported as a lost
 *     lease ({@code completion_expired})
 */
public record LeaseOptions(boolean renewBeforeWork, Optional<Completer> completer) {

  /** Completes an attempt with its outcome, fenced by the lease. */
  @FunctionalInterface
  public interface Completer {
    CompletionAck complete(LeaseToken lease, StepOutcome outcome);
  }

  public static LeaseOptions defaults() {
    return new LeaseOptions(true, Optional.empty());
  }

  /** These options without the renewal before the work (see {@link #renewBeforeWork}). */
  public LeaseOptions skipFirstRenewal() {
    return new LeaseOptions(false, completer);
  }

  /** These options completing through {@code c}. */
  public LeaseOptions completingWith(Completer c) {
    return new LeaseOptions(renewBeforeWork, Optional.of(c));
  }
}
