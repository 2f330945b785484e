package dev.flows.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.ExpiredAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.Queues;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.worker.telemetry.FlowsTelemetry;
import dev.flows.worker.telemetry.RunTraces;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims steps of the kinds its executors serve and runs each attempt on a virtual thread under
 * {@link WorkerLease#withWorkerLease}. It waits for work with {@link Journal#awaitWork} (NOTIFY on
 * Postgres) and claims again at least every {@link WorkerConfig#pollInterval()}, or sooner when a
 * retry backoff ends before that; a reconciler loop expires overdue leases as soon as the earliest
 * lease deadline in the journal passes, and at least every {@link WorkerConfig#reconcileInterval()}
 * (the journal makes that safe with many workers). All leases are renewed together by one {@link
 * LeaseKeeper} per worker. {@link #stop()} stops claiming, lets running attempts finish within
 * {@link WorkerConfig#stopGrace()}, then cancels the rest, which complete with a retryable {@code
 * worker_error} ({@code cause: worker_shutdown}) so no lease is left dangling.
 */
public final class Worker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

  /**
   * After a wake-up, how long the reconciler lets claims land before reading the next lease
   * deadline again, and how long it steps back when an overdue lease was expired by someone else.
   */
  static final Duration RECONCILE_SETTLE = Duration.ofMillis(200);

  /**
   * Read past the deadline by this much: the journal expires only what is strictly past it, and the
   * local sleep may end a hair early.
   */
  static final Duration RECONCILE_AFTER_DEADLINE_MARGIN = Duration.ofMillis(5);

  /**
   * Claim this long after a retry backoff ends, so the claim finds it over by the journal's clock.
   */
  static final Duration CLAIM_AFTER_BACKOFF_MARGIN = Duration.ofMillis(5);

  private final Journal journal;
  private final ExecutorRegistry executors;
  private final WorkerConfig config;
  private final InstantSource clock;
  private final WorkerId id;
  private final Semaphore slots;
  private final RunningAttempts attempts;
  private final LocalStarts starts;
  private final StopSignal stopping = new StopSignal();
  // Held through a whole start or stop: a start waits for a stop under way to end.
  private final Object lifecycle = new Object();
  private final AtomicLong congested = new AtomicLong();
  private final ClaimScope scope = new ClaimScope();
  private final ReconcileSweeps sweeps = new ReconcileSweeps();
  private volatile Optional<Presence> presence = Optional.empty();
  private volatile Thread claimLoop;
  private volatile Thread reconciler;

  /** A worker with this process's id: one worker id per process. */
  public Worker(
      Journal journal, ExecutorRegistry executors, WorkerConfig config, InstantSource clock) {
    this(journal, executors, config, clock, ProcessWorkerId.ID);
  }

  /** A worker with a chosen id, for hosting several workers in one process (tests). */
  public Worker(
      Journal journal,
      ExecutorRegistry executors,
      WorkerConfig config,
      InstantSource clock,
      WorkerId id) {
    this(journal, executors, config, clock, id, Optional.empty());
  }

  /**
   * A worker whose attempts run under {@code lease} when given: attempts the process runs outside
   * the claim loop (an inline MCP call of a flow body) share it, so one lease keeper renews all of
   * the process's leases in one journal call per tick; it writes through {@link ResilientJournal}.
   */
  public Worker(
      Journal journal,
      ExecutorRegistry executors,
      WorkerConfig config,
      InstantSource clock,
      WorkerId id,
      Optional<WorkerLease> lease) {
    this.journal = new ResilientJournal(journal, config);
    this.executors = executors;
    this.config = config;
    this.clock = clock;
    this.id = id;
    this.slots = new Semaphore(config.capacity());
    WorkerLease workerLease = lease.orElseGet(() -> new WorkerLease(this.journal, config, clock));
    this.attempts = new RunningAttempts(this.journal, executors, workerLease, id, slots);
    this.starts = new LocalStarts(this.journal, attempts, slots, id, config, clock);
  }

  public static WorkerId processWorkerId() {
    return ProcessWorkerId.ID;
  }

  public WorkerId id() {
    return id;
  }

  public WorkerStats stats() {
    return attempts.stats(congested.get());
  }

  /** Whether the claim loop runs: started, not stopping, and its thread alive. */
  public boolean claiming() {
    return claimLoop != null && !stopped() && claimLoop.isAlive();
  }

  /**
   * Starts claiming: the claim loop and the reconciler, each on a platform thread. A worker that
   * {@link #stop() stopped} starts again under the same id, its counts going on.
   */
  public void start() {
    synchronized (lifecycle) {
      if (claimLoop != null && !stopped()) {
        throw new IllegalStateException("worker already started");
      }
      // Started again after a stop (a container that stops and starts its context).
      stopping.lowerAfter(
          config.pollInterval().plus(config.stopCompletionTimeout()), claimLoop, reconciler);
      LOG.info(
          "worker {} attached: kinds {}, queues {}, capacity {}",
          id,
          executors.kinds(),
          scope.queues(),
          config.capacity());
      presence.ifPresent(Presence::announce);
      claimLoop =
          Thread.ofPlatform().name("flows-claim-" + id).daemon().start(this::claimUntilStopped);
      reconciler =
          Thread.ofPlatform()
              .name("flows-reconcile-" + id)
              .daemon()
              .start(this::reconcileUntilStopped);
    }
  }

  private boolean stopped() {
    return stopping.raised();
  }

  /** Waits for the stop signal up to {@code d}; answers true when stopping. */
  private boolean pause(Duration d) {
    return stopping.await(d);
  }

  /**
   * Adds routes this worker can run beyond what its executors name, e.g. {@code
   * flow:<name>@<version>} for each flow class it hosts; read at every claim.
   */
  public void addRoutes(java.util.function.Supplier<Set<String>> more) {
    scope.addRoutes(more);
  }

  /**
   * Accepts every route starting with one of the prefixes {@code more} answers (read at every
   * claim), beyond the exact routes.
   */
  public void addRoutePrefixes(java.util.function.Supplier<Set<String>> more) {
    scope.addRoutePrefixes(more);
  }

  /** Tells {@code observer} of every attempt this worker runs from now on. */
  public void observeAttempts(AttemptObserver observer) {
    attempts.observe(observer);
  }

  /** The queues this worker claims from (default: {@link Queues#DEFAULT} only). */
  public void serveQueues(Set<String> served) {
    scope.serveQueues(served);
  }

  public Set<String> queues() {
    return scope.queues();
  }

  /**
   * Once per reconcile interval, notes {@code reason} on ready steps under {@code routePrefix} of
   * its queues that this worker does not accept ({@link Journal#noteUnaccepted}), so an operator
   * sees why they wait. The claim never reads the notes.
   */
  public void noteWhenUnaccepted(String routePrefix, String reason) {
    scope.noteWhenUnaccepted(routePrefix, reason);
  }

  /**
   * Runs {@code sweep} once per reconcile interval on the reconciler's thread (it should hand slow
   * work to a thread of its own); a failure is logged and the sweep runs again next interval.
   */
  public void addSweep(Runnable sweep) {
    sweeps.add(sweep);
  }

  /**
   * Says in {@code roster} which queues and routes this worker serves: when it starts, again from
   * its reconciler's sweep, and no more once it stopped cleanly. Call before {@link #start()}.
   */
  public synchronized void announceTo(dev.flows.kernel.journal.WorkerRoster roster) {
    if (claimLoop != null || presence.isPresent()) {
      throw new IllegalStateException("announce a worker once, before it starts");
    }
    Presence p = new Presence(roster, () -> claimRequest(0), config);
    presence = Optional.of(p);
    sweeps.add(p::refreshIfDue);
  }

  /** What this worker asks for when it claims up to {@code capacity} steps. */
  ClaimRequest claimRequest(int capacity) {
    return scope.request(id, executors, capacity, config.defaultLease());
  }

  private void claimUntilStopped() {
    // Whether work may be waiting. Else a poll takes only a slot free now: a slot an attempt frees
    // goes to this process's next start (startClaimed), not to a claim that would find nothing.
    boolean expectWork = true;
    while (!stopped()) {
      try {
        if (expectWork
            ? !slots.tryAcquire(config.pollInterval().toNanos(), TimeUnit.NANOSECONDS)
            : !slots.tryAcquire()) {
          expectWork = expectWork || journal.awaitWork(config.pollInterval());
          continue;
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        TransientFaults.log(LOG, "waiting for work failed", e);
        pause(config.pollInterval());
        continue;
      }
      int free = 1 + slots.drainPermits();
      int want = Math.min(free, config.claimBatch());
      slots.release(free - want);
      // Only a worker with more room than one batch can flood its pool (a ramp of thousands of
      // attempts); one that refills a slot or a few as attempts end claims at once.
      if (free > config.claimBatch() && !uncongested()) {
        slots.release(want);
        continue;
      }
      if (stopped()) {
        slots.release(want);
        return;
      }
      Instant sent = clock.instant();
      Optional<List<ClaimedAttempt>> claimed = claim(want);
      if (claimed.isEmpty()) {
        continue;
      }
      List<ClaimedAttempt> got = claimed.get();
      slots.release(want - got.size());
      got.forEach(a -> attempts.launch(a, sent));
      if (got.isEmpty()) {
        Optional<Boolean> mayHaveWork = awaitAfterEmptyClaim();
        if (mayHaveWork.isEmpty()) {
          return;
        }
        expectWork = mayHaveWork.get();
      } else {
        expectWork = true;
      }
    }
  }

  /**
   * After a claim that found nothing, waits until a step comes due or work is announced. Answers
   * whether work may be waiting: not after a wait that ran its whole poll interval without a
   * wake-up (idle); empty when interrupted. Even an idle worker asks when the next step comes due
   * before each wait (an indexed read), so a timer or backoff due within the poll interval is
   * claimed when due, not up to a poll interval late.
   */
  private Optional<Boolean> awaitAfterEmptyClaim() {
    try {
      Duration wait = untilClaimable();
      boolean idle = !journal.awaitWork(wait) && wait.equals(config.pollInterval());
      return Optional.of(!idle);
    } catch (InterruptedException e) {
      return Optional.empty();
    } catch (RuntimeException e) {
      TransientFaults.log(LOG, "waiting for work failed", e);
      pause(config.pollInterval());
      return Optional.of(true);
    }
  }

  /** Up to {@code want} attempts; empty when the claim failed (its slots given back). */
  private Optional<List<ClaimedAttempt>> claim(int want) {
    try {
      long t0 = System.nanoTime();
      List<ClaimedAttempt> got = journal.claim(claimRequest(want));
      FlowsTelemetry.metrics().claimed(Duration.ofNanos(System.nanoTime() - t0));
      return Optional.of(got);
    } catch (RuntimeException e) {
      slots.release(want);
      TransientFaults.log(LOG, "claim failed; trying again after the poll interval", e);
      pause(config.pollInterval());
      return Optional.empty();
    }
  }

  /**
   * Waits, a {@link WorkerConfig#congestionPause} at a time and at most a poll interval in all,
   * while callers queue for a database connection: work claimed now would queue behind them, and so
   * would the renewals of the leases this worker holds. Answers false when still congested (or
   * stopping): the loop then starts over.
   */
  private boolean uncongested() {
    long deadline = System.nanoTime() + config.pollInterval().toNanos();
    while (journal.waitingForConnection() > 0) {
      if (System.nanoTime() - deadline >= 0 || pause(config.congestionPause())) {
        congested.incrementAndGet();
        return false;
      }
    }
    return true;
  }

  /**
   * How long a claimer that found nothing waits: until the earliest retry backoff of a step it
   * could claim passes, when that is sooner than the poll interval (an expired lease's retry comes
   * due ~100 ms after the expiry's wake-up, which found nothing claimable yet).
   */
  private Duration untilClaimable() {
    Optional<Duration> next = journal.untilNextClaimable(claimRequest(config.capacity()));
    return next.map(d -> d.plus(CLAIM_AFTER_BACKOFF_MARGIN))
        .filter(d -> d.compareTo(config.pollInterval()) < 0)
        .orElse(config.pollInterval());
  }

  /**
   * Admits {@code request} already claimed by this worker and starts its attempt at once, when the
   * worker runs (started, not stopping), has a free slot, and would claim the run's step itself: a
   * root run of one step ready at creation, of a kind, route and queue it serves ({@link
   * LocalStarts}). Empty when the worker cannot take it now: the caller admits it queued.
   */
  public Optional<ClaimedHere> startClaimed(StartRun request) {
    return startClaimed(request, Duration.ZERO);
  }

  /**
   * As {@link #startClaimed(StartRun)}; with {@code deferFor} positive and a request without a run
   * id, the body starts before its run is admitted ({@link Admit.Deferred}), which is admitted with
   * its success when the body ends within {@code deferFor}, else when it first needs the journal or
   * {@code deferFor} passes; this answers once the run is admitted.
   */
  public Optional<ClaimedHere> startClaimed(StartRun request, Duration deferFor) {
    if (claimLoop == null || stopped()) {
      return Optional.empty();
    }
    return starts.start(request, claimRequest(1), deferFor);
  }

  /**
   * A run {@link #startClaimed} admitted. {@code end}, present when this worker runs the attempt,
   * completes when it ends: with the run's output when it ended the run in success, else empty (the
   * run failed, parked, was canceled, or goes on under another attempt: the journal tells).
   */
  public record ClaimedHere(
      StartedRun started, Optional<CompletableFuture<Optional<JsonNode>>> end) {}

  /**
   * Expires overdue leases as soon as the earliest one is due: sleeps until the earliest lease
   * deadline in the journal (at most {@link WorkerConfig#reconcileInterval()}), then expires. A
   * wake-up from the journal (work changed: a claim may have granted a shorter lease) ends the
   * sleep early; the deadline is read again after {@link #RECONCILE_SETTLE}, once claims had time
   * to land, so a busy journal costs at most one cheap read per settle period.
   */
  private void reconcileUntilStopped() {
    long notedAt = System.nanoTime() - config.reconcileInterval().toNanos();
    while (!stopped()) {
      if (System.nanoTime() - notedAt >= config.reconcileInterval().toNanos()) {
        notedAt = System.nanoTime();
        if (scope.notes()) {
          noteUnaccepted();
        }
        sweeps.runAll();
      }
      Duration sleep;
      try {
        Optional<Duration> until = journal.untilNextLeaseDeadline();
        if (until.isPresent() && !until.get().isPositive()) {
          List<ExpiredAttempt> expired = journal.expireLeases();
          for (ExpiredAttempt e : expired) {
            FlowsTelemetry.metrics().attemptCompleted(CompletionReason.LEASE_EXPIRED.wire());
            RunTraces.expired(journal, e, clock.instant());
          }
          if (!expired.isEmpty()) {
            LOG.info("expired {} overdue leases", expired.size());
            continue;
          }
          // Overdue, yet another reconciler or a late completion got there first: let it finish.
          sleep = RECONCILE_SETTLE;
        } else {
          sleep =
              until
                  .map(d -> d.plus(RECONCILE_AFTER_DEADLINE_MARGIN))
                  .filter(d -> d.compareTo(config.reconcileInterval()) < 0)
                  .orElse(config.reconcileInterval());
        }
      } catch (RuntimeException e) {
        TransientFaults.log(LOG, "reconciling leases failed; trying again next interval", e);
        sleep = config.reconcileInterval();
      }
      try {
        if (journal.awaitWork(sleep) && pause(RECONCILE_SETTLE)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        TransientFaults.log(LOG, "waiting for work changes failed", e);
        if (pause(sleep)) {
          return;
        }
      }
    }
  }

  private void noteUnaccepted() {
    scope.noteUnaccepted(journal, claimRequest(ClaimScope.NOTE_BATCH));
  }

  /**
   * Stops claiming, lets running attempts finish within the stop grace, then cancels the rest and
   * waits for them to complete. Idempotent; {@link #start()} starts claiming again.
   */
  public void stop() {
    synchronized (lifecycle) {
      boolean claiming = claimLoop != null && !stopped();
      stopping.raise();
      if (claiming) {
        drain();
      }
    }
  }

  private void drain() {
    LOG.info("worker {} stopping: {} attempts running", id, attempts.running());
    // The claim loop may be waiting a whole poll interval for a wake-up: cut that wait short. It
    // runs on a platform thread, so an interrupt cannot close a journal socket under it.
    claimLoop.interrupt();
    // A claim statement cannot be interrupted: wait for it to answer, so that what it claimed is
    // in flight (and handed back below) before this worker judges itself idle.
    StopSignal.join(
        claimLoop,
        config.pollInterval().plus(config.stopGrace()).plus(config.stopCompletionTimeout()));
    if (claimLoop.isAlive()) {
      LOG.warn("a claim still had no answer at stop; what it claims will wait for its lease");
    }
    if (!attempts.awaitIdle(config.stopGrace())) {
      LOG.warn("{} attempts outlived the stop grace; canceling them", attempts.running());
      attempts.cancelAll(CancellationToken.Cause.WORKER_SHUTDOWN);
      if (!attempts.awaitIdle(config.killGrace().plus(config.stopCompletionTimeout()))) {
        LOG.error(
            "{} attempts did not complete; their leases will expire and be retried",
            attempts.running());
      }
    }
    // The reconciler may be waiting for a wake-up up to a whole interval: cut that short. It runs
    // on a platform thread, so an interrupt cannot close a journal socket under it.
    reconciler.interrupt();
    StopSignal.join(reconciler, config.reconcileInterval());
    presence.ifPresent(Presence::withdraw);
    LOG.info("worker {} stopped: {}", id, stats());
  }

  @Override
  public void close() {
    stop();
  }
}
