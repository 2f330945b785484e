package dev.flows.worker;

import dev.flows.kernel.LeaseConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.StepOutcome;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
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
 */
public final class WorkerLease {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerLease.class);

  private final Journal journal;
  private final WorkerConfig config;
  private final InstantSource clock;

  /** {@code journal} should be a {@link ResilientJournal}: renewals ride out brief faults. */
  public WorkerLease(Journal journal, WorkerConfig config, InstantSource clock) {
    this.journal = journal;
    this.config = config;
    this.clock = clock;
  }

  /**
   * Runs {@code work} for {@code attempt} and completes the attempt with its outcome.
   *
   * @param claimSentAt local time just before the claim that opened the attempt was sent
   * @param token cancels the work; the lease cancels it too (lease expiry, renewal failure)
   * @throws LeaseLostException when the lease was lost; nothing was completed
   */
  public LeasedCompletion withWorkerLease(
      ClaimedAttempt attempt, Instant claimSentAt, CancellationToken token, LeasedWork work) {
    return withWorkerLease(attempt, claimSentAt, token, work, true, journal::complete);
  }

  /** Ends an attempt in the journal: {@link Journal#complete}, or a verb that does more at once. */
  @FunctionalInterface
  public interface Completer {
    CompletionAck complete(LeaseToken lease, StepOutcome outcome);
  }

  /**
   * As {@link #withWorkerLease(ClaimedAttempt, Instant, CancellationToken, LeasedWork)}, for an
   * attempt whose lease was granted in the same transaction that elected its effect ({@link
   * Journal#startClaimed}): {@code renewFirst=false} skips the renewal before work (the grant is as
   * fresh as that renewal would be, and the local deadline counts from before it was sent), and
   * {@code completer} ends the attempt (e.g. {@link Journal#confirmAndComplete}). Everything else —
   * renewals, the local deadline, the late-completion check — is the same.
   */
  public LeasedCompletion withWorkerLease(
      ClaimedAttempt attempt,
      Instant claimSentAt,
      CancellationToken token,
      LeasedWork work,
      boolean renewFirst,
      Completer completer) {
    LeaseToken lease = attempt.lease();
    Duration leaseLength = Duration.ofMillis(attempt.leaseMs());
    State state = new State(claimSentAt, claimSentAt.plus(leaseLength), Thread.currentThread());
    if (!clock.instant().isBefore(state.deadline)) {
      throw new LeaseLostException(lease, LostLeaseReason.ALREADY_EXPIRED, null, 0, null);
    }
    if (renewFirst) {
      renewBeforeWork(lease, leaseLength, state);
    }

    token.onCancel(state::interruptWork);
    Thread timer =
        Thread.ofVirtual()
            .name("lease-timer-" + lease.place())
            .start(() -> state.expireAtDeadline(token));
    Thread renewer =
        Thread.ofVirtual()
            .name("lease-renewer-" + lease.place())
            .start(() -> state.renewUntilStopped(lease, leaseLength, token));
    StepOutcome outcome;
    try {
      outcome = runWork(work, token);
    } finally {
      state.stop(timer, renewer);
      // Interrupts were ours, to stop the work; it has stopped. Left set, they would break the
      // waits below and close the journal's socket under the completion (virtual threads do that).
      Thread.interrupted();
    }
    drain(renewer, state);

    return complete(lease, state, outcome, completer);
  }

  /** The renewal before any effectful work: refused or late, the work never starts. */
  private void renewBeforeWork(LeaseToken lease, Duration leaseLength, State state) {
    Instant sent = clock.instant();
    try {
      journal.heartbeat(lease);
    } catch (LeaseConflictException | RunTerminalException refused) {
      LOG.warn("{}: first renewal refused ({}); not starting work", lease.place(), refused.code());
      throw new LeaseLostException(
          lease, LostLeaseReason.ALREADY_EXPIRED, refused.code(), 0, refused);
    } catch (RuntimeException fatal) {
      // The lease may still be live: hand the step back now rather than let it wait for expiry.
      giveBack(lease, fatal);
      throw fatal;
    }
    if (!state.renewed(sent, leaseLength, clock.instant())) {
      throw new LeaseLostException(lease, LostLeaseReason.RENEWAL_EXPIRED, null, 0, null);
    }
  }

  /**
   * Completes unless the lease was lost: the clock is checked again after renewals were drained.
   */
  private LeasedCompletion complete(
      LeaseToken lease, State state, StepOutcome workOutcome, Completer completer) {
    StepOutcome outcome = workOutcome;
    synchronized (state) {
      if (state.expired) {
        throw new LeaseLostException(
            lease, LostLeaseReason.RENEWAL_EXPIRED, null, state.renewals, null);
      }
      if (state.fatal != null) {
        outcome =
            Tails.workerError(
                WorkerDiagnostic.RENEWAL_FAILED, String.valueOf(state.fatal.getMessage()));
      }
      if (!clock.instant().isBefore(state.deadline)) {
        throw new LeaseLostException(
            lease, LostLeaseReason.COMPLETION_EXPIRED, null, state.renewals, null);
      }
    }
    try {
      CompletionAck ack = completer.complete(lease, outcome);
      return new LeasedCompletion(ack, state.renewals());
    } catch (LeaseConflictException | RunTerminalException refused) {
      throw new LeaseLostException(
          lease, LostLeaseReason.COMPLETION_EXPIRED, refused.code(), state.renewals(), refused);
    }
  }

  private void giveBack(LeaseToken lease, RuntimeException fatal) {
    try {
      journal.complete(
          lease,
          Tails.workerError(WorkerDiagnostic.RENEWAL_FAILED, String.valueOf(fatal.getMessage())));
    } catch (RuntimeException e) {
      fatal.addSuppressed(e);
    }
  }

  private static StepOutcome runWork(LeasedWork work, CancellationToken token) {
    try {
      return work.run(token);
    } catch (InterruptedException e) {
      return Tails.canceled(token, Tails.of(WorkerDiagnostic.CANCELED, "interrupted"));
    } catch (Exception e) {
      if (token.isCancelled()) {
        return Tails.canceled(token, Tails.of(WorkerDiagnostic.CANCELED, String.valueOf(e)));
      }
      LOG.error("executor failed", e);
      return Tails.workerError(WorkerDiagnostic.EXECUTOR_FAILED, String.valueOf(e));
    }
  }

  /**
   * Waits for an in-flight renewal to answer, but never past the local deadline: after it the
   * answer no longer matters.
   */
  private void drain(Thread renewer, State state) {
    while (renewer.isAlive()) {
      Duration left = Duration.between(clock.instant(), state.deadline());
      if (left.isNegative() || left.isZero()) {
        break;
      }
      try {
        renewer.join(left);
      } catch (InterruptedException e) {
        // Someone else wants this thread to stop: do not wait any longer, but let them know.
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void sleepUntil(Instant t) throws InterruptedException {
    for (Instant now = clock.instant(); now.isBefore(t); now = clock.instant()) {
      Thread.sleep(Duration.between(now, t));
    }
  }

  /** The local view of one lease, shared by the work thread, the timer and the renewer. */
  private final class State {
    private final Thread workThread;
    private Instant lastRenewal;
    private Instant deadline;
    private int renewals;
    private boolean expired;
    private boolean stopping;
    private boolean renewalInFlight;
    private Throwable fatal;

    State(Instant issuedAt, Instant deadline, Thread workThread) {
      this.lastRenewal = issuedAt;
      this.deadline = deadline;
      this.workThread = workThread;
    }

    synchronized Instant deadline() {
      return deadline;
    }

    synchronized int renewals() {
      return renewals;
    }

    /** Applies a renewal sent at {@code sent}; refused if the lease expired before the answer. */
    synchronized boolean renewed(Instant sent, Duration leaseLength, Instant answeredAt) {
      if (expired || !answeredAt.isBefore(deadline)) {
        return false;
      }
      lastRenewal = sent;
      Instant extended = sent.plus(leaseLength);
      if (extended.isAfter(deadline)) {
        deadline = extended;
      }
      renewals++;
      return true;
    }

    /** Interrupts the work unless it already ended (the thread may be completing by then). */
    synchronized void interruptWork() {
      if (!stopping) {
        workThread.interrupt();
      }
    }

    void expireAtDeadline(CancellationToken token) {
      try {
        while (true) {
          Instant d;
          synchronized (this) {
            if (stopping) {
              return;
            }
            d = deadline;
            if (!clock.instant().isBefore(d)) {
              expired = true;
              break;
            }
          }
          sleepUntil(d);
        }
      } catch (InterruptedException e) {
        return;
      }
      LOG.warn("local lease deadline passed; canceling the work of {}", workThread);
      token.cancel(CancellationToken.Cause.LEASE_EXPIRED);
    }

    void renewUntilStopped(LeaseToken lease, Duration leaseLength, CancellationToken token) {
      while (true) {
        Instant next;
        synchronized (this) {
          next = config.nextRenewalAt(lastRenewal, deadline);
        }
        try {
          sleepUntil(next);
        } catch (InterruptedException e) {
          return;
        }
        Instant sent;
        synchronized (this) {
          if (stopping || expired) {
            return;
          }
          renewalInFlight = true;
          sent = clock.instant();
        }
        try {
          journal.heartbeat(lease);
          if (!renewed(sent, leaseLength, clock.instant())) {
            LOG.warn("{}: renewal answered after the local deadline; ignored", lease.place());
            return;
          }
        } catch (LeaseConflictException | RunTerminalException refused) {
          // The journal owns the attempt's fate now; the local deadline still cancels the work.
          LOG.warn("{}: renewal refused ({}); no more renewals", lease.place(), refused.code());
          return;
        } catch (RuntimeException e) {
          LOG.error("{}: renewal failed; aborting the attempt", lease.place(), e);
          synchronized (this) {
            fatal = e;
          }
          token.cancel(CancellationToken.Cause.RENEWAL_FAILED);
          return;
        } finally {
          synchronized (this) {
            renewalInFlight = false;
          }
        }
      }
    }

    /** Ends the timer and a sleeping renewer; a renewal in flight is left to answer (drained). */
    synchronized void stop(Thread timer, Thread renewer) {
      stopping = true;
      timer.interrupt();
      if (!renewalInFlight) {
        renewer.interrupt();
      }
    }
  }
}
