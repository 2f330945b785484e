package dev.flows.worker;

import dev.flows.kernel.FlowsException;
import dev.flows.kernel.LeaseConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.journal.StepOutcome;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an attempt's work under its lease.
 *
 * <p>The worker keeps its own, conservative view of the deadline: a renewal sent at local time
 * {@code t} holds until {@code t + leaseMs} (the journal extends from its own later "now", so the
 * local view can only be early). The lease is renewed once before any work starts, then each time a
 * third of what remains has passed. A local timer cancels the work (token and interrupt) at the
 * local deadline; a renewal answered after that cannot revive the lease, because the journal may
 * already have given the step to another worker. Before completing, an in-flight renewal is drained
 * and the clock checked again. The journal's clock judges for real: a completion it receives late
 * is refused and reported here as {@link LostLeaseReason#COMPLETION_EXPIRED}.
 *
 * <p>All leases of one {@code WorkerLease} (one per worker) are kept by one {@link LeaseKeeper}:
 * they are renewed together, one {@link Journal#renewLeases} call per tick, and one timer enforces
 * every local deadline. Attempts that start together share the renewal before their work.
 */
public final class WorkerLease {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerLease.class);

  private final Journal journal;
  private final InstantSource clock;
  private final LeaseKeeper keeper;
  private final PayloadLimits limits;

  /** {@code journal} should be a {@link ResilientJournal}: renewals ride out brief faults. */
  public WorkerLease(Journal journal, WorkerConfig config, InstantSource clock) {
    this.journal = journal;
    this.clock = clock;
    this.keeper = new LeaseKeeper(journal, config, clock);
    this.limits = config.payloadLimits();
  }

  /**
   * Runs {@code work} for {@code attempt} and completes the attempt with its outcome, with {@link
   * LeaseOptions#defaults()}.
   *
   * @param claimSentAt local time just before the claim that opened the attempt was sent
   * @param token cancels the work; the lease cancels it too (lease expiry, renewal failure)
   * @throws LeaseLostException when the lease was lost; nothing was completed
   */
  public LeasedCompletion withWorkerLease(
      ClaimedAttempt attempt, Instant claimSentAt, CancellationToken token, LeasedWork work) {
    return withWorkerLease(attempt, claimSentAt, token, LeaseOptions.defaults(), work);
  }

  /**
   * Runs {@code work} for {@code attempt} as {@link #withWorkerLease(ClaimedAttempt, Instant,
   * CancellationToken, LeasedWork)} does, with {@code options}: whether to renew before the work,
   * and what completes the attempt.
   */
  public LeasedCompletion withWorkerLease(
      ClaimedAttempt attempt,
      Instant claimSentAt,
      CancellationToken token,
      LeaseOptions options,
      LeasedWork work) {
    LeaseToken lease = attempt.lease();
    Duration leaseLength = Duration.ofMillis(attempt.leaseMs());
    if (!clock.instant().isBefore(claimSentAt.plus(leaseLength))) {
      throw new LeaseLostException(lease, LostLeaseReason.ALREADY_EXPIRED, null, 0, null);
    }
    LeaseKeeper.Held held =
        keeper.hold(lease, leaseLength, claimSentAt, token, Optional.of(Thread.currentThread()));
    try {
      if (options.renewBeforeWork()) {
        renewBeforeWork(held);
      }
      token.onCancel(held::interruptWork);
      StepOutcome outcome;
      try {
        outcome = runWork(work, token);
      } finally {
        held.stopWork();
        // Interrupts were ours, to stop the work; it has stopped. Left set, they would break the
        // waits below and close the journal's socket under the completion (virtual threads do
        // that).
        Thread.interrupted();
      }
      held.drain();
      return complete(held, outcome, options);
    } finally {
      keeper.release(held);
    }
  }

  /**
   * As {@link #withWorkerLease(ClaimedAttempt, Instant, CancellationToken, LeaseOptions,
   * LeasedWork)}, for work that no thread waits on: {@code work} starts it on the caller's thread
   * and answers its outcome's future. The lease is kept while the future is pending and cancelled
   * through {@code token} only (no thread to interrupt); once the future completes, the attempt is
   * completed on the virtual thread that completed it, or on a new virtual thread when a platform
   * thread completed it (the completion blocks on the journal). The answer fails with {@link
   * LeaseLostException} when the lease was lost (nothing was completed).
   */
  public CompletableFuture<LeasedCompletion> withWorkerLeaseAsync(
      ClaimedAttempt attempt,
      Instant claimSentAt,
      CancellationToken token,
      LeaseOptions options,
      AsyncLeasedWork work) {
    LeaseToken lease = attempt.lease();
    Duration leaseLength = Duration.ofMillis(attempt.leaseMs());
    if (!clock.instant().isBefore(claimSentAt.plus(leaseLength))) {
      return CompletableFuture.failedFuture(
          new LeaseLostException(lease, LostLeaseReason.ALREADY_EXPIRED, null, 0, null));
    }
    LeaseKeeper.Held held = keeper.hold(lease, leaseLength, claimSentAt, token, Optional.empty());
    CompletableFuture<LeasedCompletion> done = new CompletableFuture<>();
    CompletableFuture<StepOutcome> outcome;
    try {
      if (options.renewBeforeWork()) {
        renewBeforeWork(held);
      }
      outcome = work.start(token);
    } catch (InterruptedException e) {
      // Interrupted while starting (connecting): the caller sees the interrupt; the attempt ends
      // as a cancelled one.
      Thread.currentThread().interrupt();
      outcome =
          CompletableFuture.completedFuture(
              DiagnosticTails.canceled(
                  token, DiagnosticTails.of(WorkerDiagnostic.CANCELED, "interrupted")));
    } catch (RuntimeException e) {
      if (e instanceof LeaseLostException) {
        keeper.release(held);
        return CompletableFuture.failedFuture(e);
      }
      outcome = CompletableFuture.completedFuture(failedWork(e, token));
    }
    outcome.whenComplete((o, failure) -> completeWhenDone(held, o, failure, token, options, done));
    return done;
  }

  /** Completes the attempt with the work's outcome (a failure of the work fails it). */
  private void completeWhenDone(
      LeaseKeeper.Held held,
      StepOutcome o,
      Throwable failure,
      CancellationToken token,
      LeaseOptions options,
      CompletableFuture<LeasedCompletion> done) {
    Runnable completion =
        () -> {
          try {
            held.stopWork();
            StepOutcome end = failure == null ? o : failedWork(failure, token);
            held.drain();
            done.complete(complete(held, end, options));
          } catch (Throwable t) {
            done.completeExceptionally(t);
          } finally {
            keeper.release(held);
          }
        };
    // The completion writes to the journal, so it never runs on a platform thread that answered
    // the work (a transport's reader, a timer), nor on an interrupted thread (a virtual thread's
    // interrupt closes the journal's socket under the write). A virtual thread that produced the
    // outcome (the executor's finisher, or the starting thread) may block: completing right there
    // saves a thread start and a hand-off on every call's critical path.
    Thread here = Thread.currentThread();
    if (here.isVirtual() && !here.isInterrupted()) {
      completion.run();
    } else {
      Thread.ofVirtual().name("flows-complete-" + held.lease().place()).start(completion);
    }
  }

  /** Starts work whose outcome arrives later (see {@link #withWorkerLeaseAsync}). */
  @FunctionalInterface
  public interface AsyncLeasedWork {
    CompletableFuture<StepOutcome> start(CancellationToken token) throws InterruptedException;
  }

  private static StepOutcome failedWork(Throwable failure, CancellationToken token) {
    Throwable t = failure;
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (token.isCancelled() || t instanceof java.util.concurrent.CancellationException) {
      return DiagnosticTails.canceled(
          token, DiagnosticTails.of(WorkerDiagnostic.CANCELED, String.valueOf(t)));
    }
    LOG.error("executor failed", t);
    return DiagnosticTails.workerError(WorkerDiagnostic.EXECUTOR_FAILED, String.valueOf(t));
  }

  /** The renewal before any effectful work: refused or late, the work never starts. */
  private void renewBeforeWork(LeaseKeeper.Held held) {
    LeaseToken lease = held.lease();
    switch (keeper.renewFirst(held)) {
      case LeaseKeeper.FirstRenewal.Renewed r -> {}
      case LeaseKeeper.FirstRenewal.Late l ->
          throw new LeaseLostException(lease, LostLeaseReason.RENEWAL_EXPIRED, null, 0, null);
      case LeaseKeeper.FirstRenewal.Expired e ->
          throw new LeaseLostException(lease, LostLeaseReason.ALREADY_EXPIRED, null, 0, null);
      case LeaseKeeper.FirstRenewal.Refused r -> {
        LOG.warn(
            "{}: first renewal refused ({}); not starting work", lease.place(), r.code().wire());
        throw new LeaseLostException(lease, LostLeaseReason.ALREADY_EXPIRED, r.code(), 0, null);
      }
      case LeaseKeeper.FirstRenewal.Failed f -> {
        // The lease may still be live: hand the step back now rather than let it wait for expiry.
        giveBack(lease, f.error());
        throw f.error();
      }
    }
  }

  /**
   * Completes unless the lease was lost: the clock is checked again after renewals were drained.
   */
  private LeasedCompletion complete(
      LeaseKeeper.Held held, StepOutcome workOutcome, LeaseOptions options) {
    LeaseToken lease = held.lease();
    LeaseKeeper.Snapshot state = held.snapshot();
    if (state.expired()) {
      throw new LeaseLostException(
          lease, LostLeaseReason.RENEWAL_EXPIRED, null, state.renewals(), null);
    }
    StepOutcome outcome =
        state
            .fatal()
            .<StepOutcome>map(
                f ->
                    DiagnosticTails.workerError(
                        WorkerDiagnostic.RENEWAL_FAILED, String.valueOf(f.getMessage())))
            .orElse(bounded(workOutcome, lease));
    if (!clock.instant().isBefore(state.deadline())) {
      throw new LeaseLostException(
          lease, LostLeaseReason.COMPLETION_EXPIRED, null, state.renewals(), null);
    }
    try {
      CompletionAck ack =
          options
              .completer()
              .map(c -> c.complete(lease, outcome))
              .orElseGet(() -> journal.complete(lease, outcome));
      RunMeasures.completed(journal, lease, ack, clock.instant());
      return new LeasedCompletion(ack, state.renewals());
    } catch (LeaseConflictException | RunTerminalException refused) {
      throw new LeaseLostException(
          lease, LostLeaseReason.COMPLETION_EXPIRED, refused.code(), state.renewals(), refused);
    }
  }

  /**
   * A success whose output is past this worker's {@code maxStepOutputBytes} fails its step {@code
   * payload_too_large} instead (not retried: the same work answers the same output); nothing of the
   * output is journaled.
   */
  private StepOutcome bounded(StepOutcome o, LeaseToken lease) {
    if (o instanceof StepOutcome.Succeeded ok) {
      try {
        limits.requireStepOutput(ok.output(), lease.place());
      } catch (FlowsException tooLarge) {
        return DiagnosticTails.refused(tooLarge);
      }
    }
    return o;
  }

  /** Before any work: a plain {@link Journal#complete}, whatever completer the options name. */
  private void giveBack(LeaseToken lease, RuntimeException fatal) {
    try {
      journal.complete(
          lease,
          DiagnosticTails.workerError(
              WorkerDiagnostic.RENEWAL_FAILED, String.valueOf(fatal.getMessage())));
    } catch (RuntimeException e) {
      fatal.addSuppressed(e);
    }
  }

  private static StepOutcome runWork(LeasedWork work, CancellationToken token) {
    try {
      return work.run(token);
    } catch (InterruptedException e) {
      return DiagnosticTails.canceled(
          token, DiagnosticTails.of(WorkerDiagnostic.CANCELED, "interrupted"));
    } catch (Exception e) {
      if (token.isCancelled()) {
        return DiagnosticTails.canceled(
            token, DiagnosticTails.of(WorkerDiagnostic.CANCELED, String.valueOf(e)));
      }
      LOG.error("executor failed", e);
      return DiagnosticTails.workerError(WorkerDiagnostic.EXECUTOR_FAILED, String.valueOf(e));
    }
  }
}
