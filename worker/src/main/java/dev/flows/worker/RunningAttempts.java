package dev.flows.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.StepKind;
import dev.flows.worker.telemetry.AttemptSpan;
import dev.flows.worker.telemetry.FlowsTelemetry;
import dev.flows.worker.telemetry.RunTraces;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts a {@link Worker} runs: each on its own virtual thread under the worker lease,
 * holding one of the worker's slots until it ends. Its own class so that the claim loop, the
 * claimed admission and {@link Worker#stop()} share one place that launches, counts, waits for and
 * cancels attempts, apart from how the work is found.
 */
final class RunningAttempts {
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

  private final Journal journal;
  private final ExecutorRegistry executors;
  private final WorkerLease lease;
  private final WorkerId id;
  private final Semaphore slots;
  private final Map<CancellationToken, Thread> inFlight = new ConcurrentHashMap<>();
  private final Object idle = new Object();
  private final AtomicLong claimed = new AtomicLong();
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong leaseLost = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong renewals = new AtomicLong();
  private volatile AttemptObserver observer = AttemptObserver.NONE;

  RunningAttempts(
      Journal journal,
      ExecutorRegistry executors,
      WorkerLease lease,
      WorkerId id,
      Semaphore slots) {
    this.journal = journal;
    this.executors = executors;
    this.lease = lease;
    this.id = id;
    this.slots = slots;
  }

  /** The worker's counts, with {@code congested} counted by its claim loop. */
  WorkerStats stats(long congested) {
    return new WorkerStats(
        claimed.get(), completed.get(), leaseLost.get(), failed.get(), renewals.get(), congested);
  }

  void observe(AttemptObserver o) {
    observer = o;
  }

  /** Tells the observer; what it throws is logged, never ends the attempt. */
  private void tell(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      LOG.warn("attempt observer failed", e);
    }
  }

  /** How many attempts are running. */
  int running() {
    return inFlight.size();
  }

  /** Cancels every running attempt with {@code cause}. */
  void cancelAll(CancellationToken.Cause cause) {
    inFlight.keySet().forEach(t -> t.cancel(cause));
  }

  void launch(ClaimedAttempt attempt, Instant claimSentAt) {
    launch(attempt, claimSentAt, LeaseOptions.defaults(), Optional.empty());
  }

  void launch(
      ClaimedAttempt attempt,
      Instant claimSentAt,
      LeaseOptions options,
      Optional<CompletableFuture<Optional<JsonNode>>> end) {
    launch(attempt, claimSentAt, options, end, () -> {});
  }

  /** As above; {@code onStart} runs first on the attempt's thread. */
  void launch(
      ClaimedAttempt attempt,
      Instant claimSentAt,
      LeaseOptions options,
      Optional<CompletableFuture<Optional<JsonNode>>> end,
      Runnable onStart) {
    claimed.incrementAndGet();
    CancellationToken token = new CancellationToken();
    Thread t =
        Thread.ofVirtual()
            .name("flows-attempt-" + attempt.lease().place())
            .unstarted(
                () -> {
                  onStart.run();
                  runAttempt(attempt, claimSentAt, token, options, end);
                });
    inFlight.put(token, t);
    t.start();
  }

  private void runAttempt(
      ClaimedAttempt attempt,
      Instant claimSentAt,
      CancellationToken token,
      LeaseOptions options,
      Optional<CompletableFuture<Optional<JsonNode>>> end) {
    AttemptSpan span = RunTraces.startAttempt(journal, attempt, id);
    AtomicReference<StepOutcome> outcome = new AtomicReference<>();
    Optional<JsonNode> endedWith = Optional.empty();
    AttemptObserver seen = observer;
    long began = System.nanoTime();
    tell(() -> seen.claimed(attempt));
    AttemptObserver.Ending ending = new AttemptObserver.Ending.Failed("no completion");
    try {
      LeasedCompletion done = execute(attempt, claimSentAt, token, options, span, outcome);
      if (done.ack().runStatus() == RunStatus.SUCCEEDED
          && outcome.get() instanceof StepOutcome.Succeeded ok) {
        // The journal has the same output: the completion wrote it (JSON null for none).
        endedWith = Optional.of(ok.output() == null ? NullNode.getInstance() : ok.output());
      }
      span.completed(done.ack());
      ending = new AttemptObserver.Ending.Completed(done.ack());
      completed.incrementAndGet();
      renewals.addAndGet(done.renewals());
    } catch (LeaseLostException e) {
      leaseLost.incrementAndGet();
      FlowsTelemetry.metrics().leaseLost(e.reason().wire());
      span.leaseLost(e.reason().wire());
      ending = new AttemptObserver.Ending.LeaseLost(e.reason().wire());
      LOG.warn("{}: {}", attempt.lease().place(), e.oneLine());
    } catch (RuntimeException e) {
      failed.incrementAndGet();
      span.failed(e);
      ending = new AttemptObserver.Ending.Failed(String.valueOf(e.getMessage()));
      LOG.error("{}: attempt ended without a completion", attempt.lease().place(), e);
    } finally {
      AttemptObserver.Ending how = ending;
      Duration took = Duration.ofNanos(System.nanoTime() - began);
      tell(() -> seen.ended(attempt, how, took));
      inFlight.remove(token);
      slots.release();
      synchronized (idle) {
        idle.notifyAll();
      }
      // After the slot is free: a waiter woken here may start its next run on it at once.
      Optional<JsonNode> result = endedWith;
      end.ifPresent(f -> f.complete(result));
    }
  }

  /** Runs the attempt's executor under the worker lease; {@code outcome} gets what it answered. */
  private LeasedCompletion execute(
      ClaimedAttempt attempt,
      Instant claimSentAt,
      CancellationToken token,
      LeaseOptions options,
      AttemptSpan span,
      AtomicReference<StepOutcome> outcome) {
    StepKind kind = attempt.step().kind();
    JournalEffectGate gate = new JournalEffectGate(journal, attempt.lease());
    return lease.withWorkerLease(
        attempt,
        claimSentAt,
        token,
        options,
        tok -> {
          Optional<StepExecutor> executor = executors.executorFor(kind);
          if (executor.isEmpty()) {
            return DiagnosticTails.workerError(
                WorkerDiagnostic.NO_EXECUTOR, "no executor for kind " + kind.wire());
          }
          try (Scope current = span.makeCurrent()) {
            StepOutcome o = executor.get().execute(new StepExecution(attempt, tok, gate));
            outcome.set(o);
            return o;
          }
        });
  }

  /** Waits up to {@code d} for no attempt to be running; answers whether none is. */
  boolean awaitIdle(Duration d) {
    long deadline = System.nanoTime() + d.toNanos();
    synchronized (idle) {
      while (!inFlight.isEmpty()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(idle, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return inFlight.isEmpty();
        }
      }
      return true;
    }
  }
}
