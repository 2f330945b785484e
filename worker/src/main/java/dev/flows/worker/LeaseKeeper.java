package dev.flows.worker;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseRenewals;
import dev.flows.kernel.journal.LeaseToken;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every lease one worker holds, with one thread instead of a renewer and a timer per attempt.
 *
 * <p>Renewal: all leases that are still renewed go to the journal together in one {@link
 * Journal#renewLeases} call (one commit on Postgres), at the earliest time any of them is due (a
 * {@code 1/renewalDivisor} of its lease after its last renewal, as before), so the worker pays one
 * write per tick however many leases it holds. A lease that wants its renewal before its work
 * starts asks for an immediate call, shared by every attempt that starts meanwhile. At most one
 * call is in flight; it runs on its own short-lived virtual thread so that a slow journal never
 * delays the timer.
 *
 * <p>Timer: the same thread wakes at the earliest local deadline of all leases and expires each one
 * whose deadline passed (cancel token, which interrupts the work). Deadlines are local and
 * conservative: a renewal sent at {@code t} holds until {@code t + leaseMs}; an answer arriving
 * after the local deadline does not revive the lease.
 *
 * <p>The thread runs while leases are held and ends by itself {@link #IDLE_LINGER} after the last
 * one is released, so a keeper needs no closing, and a worker whose attempts follow one another
 * (one client starting run after run) keeps one thread instead of starting one per attempt. It is
 * woken only when its plan must change: a lease due before its planned wake, a first renewal asked
 * for, a renewal answered; a lease released or whose work stopped only makes its plan later, and it
 * finds that out when it wakes.
 */
final class LeaseKeeper {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

  /** After an unexpected failure of the keeper loop itself: try again soon, without a log storm. */
  private static final Duration KEEPER_FAILURE_PAUSE = Duration.ofMillis(100);

  /**
   * How long the thread stays after the last lease is released, for the next attempt to reuse: a
   * platform thread's start and end cost more than a run of a one-step flow's own work.
   */
  static final Duration IDLE_LINGER = Duration.ofSeconds(5);

  private final Journal journal;
  private final WorkerConfig config;
  private final InstantSource clock;
  private final ReentrantLock lock = new ReentrantLock();

  /** Signalled on every change: a lease held or released, a renewal answered, work stopped. */
  private final Condition changed = lock.newCondition();

  /** Signalled when the keeper's plan must change: see {@link #wakeKeeperFor}. */
  private final Condition replan = lock.newCondition();

  // Guarded by lock.
  private final Set<Held> held = new LinkedHashSet<>();
  private final Set<Held> awaitingFirst = new LinkedHashSet<>();
  private boolean batchInFlight;
  private Thread keeper;
  // When the keeper, waiting, wakes next by its plan; null while it is not waiting.
  private Instant plannedWake;

  LeaseKeeper(Journal journal, WorkerConfig config, InstantSource clock) {
    this.journal = journal;
    this.config = config;
    this.clock = clock;
  }

  /** What became of the renewal before the work. */
  sealed interface FirstRenewal {
    /** Renewed in time: the work may start. */
    record Renewed() implements FirstRenewal {}

    /** The journal renewed it, but the answer came after the local deadline. */
    record Late() implements FirstRenewal {}

    /** The local deadline passed before the renewal could be sent. */
    record Expired() implements FirstRenewal {}

    /** The journal refused it ({@code lease_conflict}, {@code run_terminal}, ...). */
    record Refused(ErrorCode code) implements FirstRenewal {}

    /** The renewal call failed with an error that is not a refusal. */
    record Failed(RuntimeException error) implements FirstRenewal {}
  }

  /** Starts keeping {@code lease}, granted by a claim sent at {@code issuedAt}. */
  Held hold(
      LeaseToken lease,
      Duration leaseLength,
      Instant issuedAt,
      CancellationToken token,
      Optional<Thread> workThread) {
    Held h = new Held(lease, leaseLength, issuedAt, token, workThread);
    lock.lock();
    try {
      held.add(h);
      if (keeper == null) {
        // A platform thread: the timer must fire on time even when every carrier is busy.
        keeper = Thread.ofPlatform().daemon().name("flows-lease-keeper").start(this::keep);
      } else {
        wakeKeeperFor(h.renewable() ? config.nextRenewalAt(h.lastRenewal, h.deadline) : h.deadline);
      }
    } finally {
      lock.unlock();
    }
    return h;
  }

  /** The keeper's thread while it runs: empty once it ended, idle for {@link #IDLE_LINGER}. */
  Optional<Thread> thread() {
    lock.lock();
    try {
      return Optional.ofNullable(keeper);
    } finally {
      lock.unlock();
    }
  }

  /** Stops keeping {@code h}: nothing more is renewed or expired for it. */
  void release(Held h) {
    lock.lock();
    try {
      held.remove(h);
      awaitingFirst.remove(h);
    } finally {
      lock.unlock();
    }
  }

  /** Asks for the renewal before the work and waits for its answer (shared with other starters). */
  FirstRenewal renewFirst(Held h) {
    lock.lock();
    try {
      h.firstPending = true;
      awaitingFirst.add(h);
      wakeKeeperFor(Instant.MIN);
      while (h.firstPending) {
        // Like the single heartbeat it replaces, the call is waited for whatever it takes.
        changed.awaitUninterruptibly();
      }
      return h.first;
    } finally {
      lock.unlock();
    }
  }

  private void keep() {
    while (true) {
      List<Held> expired = new ArrayList<>();
      List<Held> batch = List.of();
      Instant sent = null;
      boolean failed = false;
      lock.lock();
      try {
        if (held.isEmpty()) {
          if (!lingered()) {
            keeper = null;
            return;
          }
          continue;
        }
        Instant now = clock.instant();
        expireOverdue(now, expired);
        if (!batchInFlight && renewalDue(now)) {
          // A periodic tick renews every lease (so they stay aligned: one write per period); an
          // attempt's first renewal alone renews only the attempts waiting for theirs. Renewing
          // all of them for each new attempt rewrote every held lease once per claim.
          boolean periodic = nextRenewal().map(t -> !now.isBefore(t)).orElse(false);
          batch =
              (periodic ? held.stream() : awaitingFirst.stream()).filter(Held::renewable).toList();
          if (!batch.isEmpty()) {
            batchInFlight = true;
            batch.forEach(h -> h.inFlight = true);
            sent = now;
          }
        }
        if (expired.isEmpty() && batch.isEmpty()) {
          awaitPlan(nextWake().orElse(now.plus(IDLE_LINGER)));
        }
      } catch (InterruptedException e) {
        // Nobody interrupts the keeper on purpose; keep the leases kept.
        Thread.interrupted();
      } catch (RuntimeException e) {
        TransientFaults.log(LOG, "lease keeper failed; trying again", e);
        failed = true;
      } finally {
        lock.unlock();
      }
      if (failed) {
        pauseAfterFailure();
      }
      expired.forEach(LeaseKeeper::cancelExpired);
      if (!batch.isEmpty()) {
        List<Held> mine = batch;
        Instant at = sent;
        Thread.ofVirtual().name("flows-lease-renewal").start(() -> renew(mine, at));
      }
    }
  }

  /**
   * Under the lock, with no lease held: waits up to {@link #IDLE_LINGER} for one; answers whether
   * one came.
   */
  private boolean lingered() throws InterruptedException {
    long left = IDLE_LINGER.toNanos();
    while (held.isEmpty() && left > 0) {
      plannedWake = clock.instant().plusNanos(left);
      try {
        left = replan.awaitNanos(left);
      } finally {
        plannedWake = null;
      }
    }
    return !held.isEmpty();
  }

  /** Under the lock: sleeps until {@code wake}, or until woken because the plan must change. */
  private void awaitPlan(Instant wake) throws InterruptedException {
    Duration left = Duration.between(clock.instant(), wake);
    if (!left.isPositive()) {
      return;
    }
    plannedWake = wake;
    try {
      replan.awaitNanos(left.toNanos());
    } finally {
      plannedWake = null;
    }
  }

  /** Under the lock: wakes the waiting keeper when {@code due} comes before its planned wake. */
  private void wakeKeeperFor(Instant due) {
    if (plannedWake != null && due.isBefore(plannedWake)) {
      replan.signal();
    }
  }

  private static void pauseAfterFailure() {
    try {
      TimeUnit.NANOSECONDS.sleep(KEEPER_FAILURE_PAUSE.toNanos());
    } catch (InterruptedException e) {
      Thread.interrupted();
    }
  }

  /** Marks every lease past its local deadline expired (not those whose work already ended). */
  private void expireOverdue(Instant now, List<Held> expired) {
    for (Held h : held) {
      if (h.stopping || h.expired || now.isBefore(h.deadline)) {
        continue;
      }
      h.expired = true;
      expired.add(h);
      if (h.firstPending && !h.inFlight) {
        resolveFirst(h, new FirstRenewal.Expired());
      }
    }
  }

  /** A start waits for its renewal, or some lease has reached its time to be renewed. */
  private boolean renewalDue(Instant now) {
    return !awaitingFirst.isEmpty() || nextRenewal().map(t -> !now.isBefore(t)).orElse(false);
  }

  /** The earliest time a renewed lease is due again: the tick. */
  private Optional<Instant> nextRenewal() {
    return held.stream()
        .filter(Held::renewable)
        .map(h -> config.nextRenewalAt(h.lastRenewal, h.deadline))
        .min(Instant::compareTo);
  }

  private Optional<Instant> nextWake() {
    Optional<Instant> deadline =
        held.stream()
            .filter(h -> !h.stopping && !h.expired)
            .map(h -> h.deadline)
            .min(Instant::compareTo);
    if (batchInFlight) {
      return deadline;
    }
    Optional<Instant> renewal = nextRenewal();
    if (deadline.isEmpty()) {
      return renewal;
    }
    return renewal.filter(r -> r.isBefore(deadline.get())).or(() -> deadline);
  }

  private static void cancelExpired(Held h) {
    // Cancel callbacks may stop processes or sockets: never on the keeper's own thread.
    Thread.ofVirtual()
        .name("flows-lease-expired")
        .start(
            () -> {
              LOG.warn(
                  "{}: local lease deadline passed; canceling the work of {}",
                  h.lease.place(),
                  h.workThread.map(Thread::getName).orElse("an asynchronous call"));
              h.token.cancel(CancellationToken.Cause.LEASE_EXPIRED);
            });
  }

  /** One journal call for the whole batch; each lease's answer is applied to its local view. */
  private void renew(List<Held> batch, Instant sent) {
    LeaseRenewals answer = LeaseRenewals.none();
    RuntimeException failure = null;
    try {
      answer = journal.renewLeases(batch.stream().map(h -> h.lease).toList());
    } catch (RuntimeException e) {
      failure = e;
    }
    Instant answeredAt = clock.instant();
    List<Held> aborted = new ArrayList<>();
    lock.lock();
    try {
      for (Held h : batch) {
        h.inFlight = false;
        if (failure != null) {
          if (h.firstPending) {
            resolveFirst(h, new FirstRenewal.Failed(failure));
          } else {
            h.fatal = failure;
            h.renewing = false;
            aborted.add(h);
          }
        } else if (answer.deadline(h.lease).isPresent()) {
          boolean applied = h.renewed(sent, answeredAt);
          if (h.firstPending) {
            resolveFirst(h, applied ? new FirstRenewal.Renewed() : new FirstRenewal.Late());
          } else if (!applied) {
            LOG.warn("{}: renewal answered after the local deadline; ignored", h.lease.place());
            h.renewing = false;
          }
        } else {
          ErrorCode code = answer.refusal(h.lease).orElse(ErrorCode.LEASE_CONFLICT);
          if (h.firstPending) {
            resolveFirst(h, new FirstRenewal.Refused(code));
          } else {
            // The journal owns the attempt's fate now; the local deadline still cancels the work.
            LOG.warn("{}: renewal refused ({}); no more renewals", h.lease.place(), code.wire());
            h.renewing = false;
          }
        }
      }
      batchInFlight = false;
      changed.signalAll();
      wakeKeeperFor(Instant.MIN);
    } finally {
      lock.unlock();
    }
    if (!aborted.isEmpty()) {
      LOG.error("renewal of {} leases failed; aborting their attempts", aborted.size(), failure);
      aborted.forEach(h -> h.token.cancel(CancellationToken.Cause.RENEWAL_FAILED));
    }
  }

  private void resolveFirst(Held h, FirstRenewal outcome) {
    h.first = outcome;
    h.firstPending = false;
    awaitingFirst.remove(h);
    if (!(outcome instanceof FirstRenewal.Renewed)) {
      h.renewing = false;
    }
    changed.signalAll();
  }

  /** One lease as the keeper sees it; its fields are guarded by the keeper's lock. */
  final class Held {
    private final LeaseToken lease;
    private final Duration leaseLength;
    private final CancellationToken token;
    // Empty for work no thread waits on (an asynchronous call): the token alone cancels it.
    private final Optional<Thread> workThread;
    private Instant lastRenewal;
    private Instant deadline;
    private int renewals;
    private boolean expired;
    private boolean stopping;
    private boolean renewing = true;
    private boolean inFlight;
    private boolean firstPending;
    private FirstRenewal first;
    private RuntimeException fatal;

    private Held(
        LeaseToken lease,
        Duration leaseLength,
        Instant issuedAt,
        CancellationToken token,
        Optional<Thread> workThread) {
      this.lease = lease;
      this.leaseLength = leaseLength;
      this.token = token;
      this.workThread = workThread;
      this.lastRenewal = issuedAt;
      this.deadline = issuedAt.plus(leaseLength);
    }

    LeaseToken lease() {
      return lease;
    }

    private boolean renewable() {
      return renewing && !stopping && !expired;
    }

    /** Applies a renewal sent at {@code sent}; refused if the lease expired before the answer. */
    private boolean renewed(Instant sent, Instant answeredAt) {
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
    void interruptWork() {
      lock.lock();
      try {
        if (!stopping) {
          workThread.ifPresent(Thread::interrupt);
        }
      } finally {
        lock.unlock();
      }
    }

    /** The work ended: no more renewals are sent for it and the timer leaves it alone. */
    void stopWork() {
      lock.lock();
      try {
        stopping = true;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }

    /**
     * Waits for a renewal in flight to answer, but never past the local deadline: after it the
     * answer no longer matters.
     */
    void drain() {
      lock.lock();
      try {
        while (inFlight) {
          Duration left = Duration.between(clock.instant(), deadline);
          if (!left.isPositive()) {
            return;
          }
          try {
            changed.awaitNanos(left.toNanos());
          } catch (InterruptedException e) {
            // Someone else wants this thread to stop: do not wait any longer, but let them know.
            Thread.currentThread().interrupt();
            return;
          }
        }
      } finally {
        lock.unlock();
      }
    }

    /** The state a completion is judged on, read at once. */
    Snapshot snapshot() {
      lock.lock();
      try {
        return new Snapshot(expired, Optional.ofNullable(fatal), deadline, renewals);
      } finally {
        lock.unlock();
      }
    }
  }

  /** A lease's local view at one moment. */
  record Snapshot(
      boolean expired, Optional<RuntimeException> fatal, Instant deadline, int renewals) {}
}
