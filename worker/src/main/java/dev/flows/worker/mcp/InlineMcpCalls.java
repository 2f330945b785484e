package dev.flows.worker.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimedEffect;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.worker.CancellationToken;
import dev.flows.worker.EffectGate;
import dev.flows.worker.FaultPoint;
import dev.flows.worker.LeaseLostException;
import dev.flows.worker.LeaseOptions;
import dev.flows.worker.StepExecution;
import dev.flows.worker.WorkerLease;
import dev.flows.worker.telemetry.AttemptSpan;
import dev.flows.worker.telemetry.FlowsTelemetry;
import dev.flows.worker.telemetry.RunTraces;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable MCP calls performed by the worker that runs the calling body, without a claim: one
 * transaction admits the call's child run with attempt 1 leased to this worker and its effect
 * elected ({@link dev.flows.kernel.journal.Admit.Electing}); the call goes through {@link
 * McpToolExecutor} as a claimed attempt's would (same key in {@code _meta}, same receipt, same
 * outcomes, same fault points), under the child's lease ({@link WorkerLease}: renewed while the
 * call runs, cancelled at the local deadline); one transaction confirms the effect and completes
 * the attempt ({@link Journal#confirmAndComplete}). A crash anywhere leaves exactly what a crashed
 * claimer leaves, and the journal re-drives the child the same way.
 */
public final class InlineMcpCalls {
  private static final Logger LOG = LoggerFactory.getLogger(InlineMcpCalls.class);

  private final Journal journal;
  private final McpToolExecutor executor;
  private final WorkerLease lease;
  private final WorkerId worker;
  private final Duration defaultLease;
  private final InstantSource clock;

  /** {@code journal} should be a {@code ResilientJournal}, as for any worker. */
  public InlineMcpCalls(
      Journal journal,
      McpToolExecutor executor,
      WorkerLease lease,
      WorkerId worker,
      Duration defaultLease,
      InstantSource clock) {
    this.journal = journal;
    this.executor = executor;
    this.lease = lease;
    this.worker = worker;
    this.defaultLease = defaultLease;
    this.clock = clock;
  }

  /** How an inline call ended, as far as the caller needs to know. */
  public sealed interface Result {
    /** The child run succeeded with this receipt. */
    record Succeeded(JsonNode receipt) implements Result {}

    /**
     * Anything else (a failure, a retry, a lost lease): the journal holds the child's state, and
     * the caller awaits the child run as it would await one a claimer runs.
     */
    record AwaitChild() implements Result {}

    /**
     * The caller stopped waiting ({@code maxWait} passed): the call goes on in this worker, which
     * completes its child run when it ends (or stops it with the worker, see {@link #close}).
     */
    record StillRunning() implements Result {}
  }

  /** Calls whose callers may have stopped waiting: cancelled by {@link #close}. */
  private final java.util.Map<CancellationToken, CompletableFuture<CompletionAck>> inFlight =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Where a call's answer is turned into its outcome: a fresh virtual thread each. */
  private static final java.util.concurrent.Executor FINISHER =
      r -> Thread.ofVirtual().name("flows-inline-answer").start(r);

  /** {@link #call(StartRun, String, Duration)} waiting as long as the call takes. */
  public Result call(StartRun request, String surfacePath) throws InterruptedException {
    return call(request, surfacePath, Optional.empty());
  }

  /**
   * As {@link #call(StartRun, String)}, but answers {@link Result.StillRunning} once {@code
   * maxWait} has passed with the call still going.
   */
  public Result call(StartRun request, String surfacePath, Duration maxWait)
      throws InterruptedException {
    return call(request, surfacePath, Optional.of(maxWait));
  }

  /**
   * Admits the one-step MCP child {@code request} (its step an {@code mcp} agent step declaring
   * {@code surfacePath}) claimed by this worker, performs it and completes it. Refusals of the
   * admission ({@code run_admission_conflict}, {@code run_terminal}, ...) propagate and mean that
   * nothing was written.
   *
   * @throws InterruptedException when the caller is interrupted: the call is cancelled (its attempt
   *     completes as a retryable cancel, as a stopped worker's would) before this returns
   */
  private Result call(StartRun request, String surfacePath, Optional<Duration> maxWait)
      throws InterruptedException {
    Instant sent = clock.instant();
    ClaimedEffect claimed =
        journal.admit(request, Admit.claimedHere(worker, defaultLease).electing(surfacePath));
    FlowsTelemetry.metrics().runStarted(request.spec().name());
    DeferredGate gate = new DeferredGate(surfacePath, claimed.election());
    CancellationToken token = new CancellationToken();
    AtomicReference<StepOutcome> completedWith = new AtomicReference<>();
    // No thread waits on the call while it runs: the server's answer completes it (see
    // McpToolExecutor.executeAsync) and the attempt is completed on a short-lived thread, so a
    // caller that stops waiting (a suspended body) leaves nothing parked behind.
    CompletableFuture<CompletionAck> done = new CompletableFuture<>();
    AttemptSpan span = RunTraces.startAttempt(journal, claimed.attempt(), worker);
    done.whenComplete((ack, t) -> traceEnd(span, ack, t));
    send(claimed, sent, token, gate, span, completedWith, done);
    inFlight.put(token, done);
    done.whenComplete((a, t) -> inFlight.remove(token));
    return await(claimed, token, done, maxWait, completedWith);
  }

  /** Ends the attempt's span as the call ended: completed, its lease lost, or failed. */
  private static void traceEnd(AttemptSpan span, CompletionAck ack, Throwable t) {
    Throwable cause =
        t instanceof java.util.concurrent.CompletionException && t.getCause() != null
            ? t.getCause()
            : t;
    if (t == null) {
      span.completed(ack);
    } else if (cause instanceof LeaseLostException lost) {
      span.leaseLost(lost.reason().wire());
    } else {
      span.failed(cause);
    }
  }

  /**
   * Sends the call from a thread of its own, which ends once it is sent: an interrupt of the caller
   * must never reach the transport (it would fail the send), only cancel the call through the
   * token. {@code done} completes with the attempt's completion.
   */
  private void send(
      ClaimedEffect claimed,
      Instant sent,
      CancellationToken token,
      DeferredGate gate,
      AttemptSpan span,
      AtomicReference<StepOutcome> completedWith,
      CompletableFuture<CompletionAck> done) {
    LeaseOptions options =
        LeaseOptions.defaults()
            .skipFirstRenewal()
            .completingWith(
                (l, outcome) -> {
                  CompletionAck ack = finish(l, gate, outcome);
                  completedWith.set(outcome);
                  return ack;
                });
    Thread.ofVirtual()
        .name("flows-inline-" + claimed.attempt().lease().place())
        .start(
            () -> {
              try (Scope current = span.makeCurrent()) {
                lease
                    .withWorkerLeaseAsync(
                        claimed.attempt(),
                        sent,
                        token,
                        options,
                        tok ->
                            executor.executeAsync(
                                new StepExecution(claimed.attempt(), tok, gate), FINISHER))
                    .whenComplete(
                        (c, t) -> {
                          if (t == null) {
                            done.complete(c.ack());
                          } else {
                            done.completeExceptionally(t);
                          }
                        });
              } catch (Throwable t) {
                done.completeExceptionally(t);
              }
            });
  }

  /**
   * The call's result once its attempt completed, or {@link Result.StillRunning} once {@code
   * maxWait} passed first; a lost lease leaves the child to be awaited as any other.
   */
  private static Result await(
      ClaimedEffect claimed,
      CancellationToken token,
      CompletableFuture<CompletionAck> done,
      Optional<Duration> maxWait,
      AtomicReference<StepOutcome> completedWith)
      throws InterruptedException {
    CompletionAck ack;
    try {
      ack =
          maxWait.isPresent()
              ? done.get(maxWait.get().toMillis(), TimeUnit.MILLISECONDS)
              : done.get();
    } catch (TimeoutException e) {
      return new Result.StillRunning();
    } catch (InterruptedException e) {
      // The caller's own lease is gone (or its worker stops): stop the call as a stopped worker
      // would, and let its attempt complete before the caller unwinds.
      token.cancel(CancellationToken.Cause.WORKER_SHUTDOWN);
      try {
        done.join();
      } catch (RuntimeException ended) {
        // Ended either way; the journal holds how.
      }
      throw e;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof LeaseLostException lost) {
        LOG.warn("{}: {}", claimed.attempt().lease().place(), lost.oneLine());
        FlowsTelemetry.metrics().leaseLost(lost.reason().wire());
        return new Result.AwaitChild();
      }
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(e.getCause());
    }
    if (ack.runStatus() == RunStatus.SUCCEEDED
        && completedWith.get() instanceof StepOutcome.Succeeded ok) {
      return new Result.Succeeded(ok.output());
    }
    return new Result.AwaitChild();
  }

  /**
   * Stops the calls still going (those whose callers stopped waiting, too): waits up to {@code
   * grace} for them to end, then cancels them as a stopping worker cancels its attempts (each
   * completes as a retryable cancel) and waits up to {@code cancelGrace} more.
   */
  public void close(Duration grace, Duration cancelGrace) {
    if (!joinAll(grace)) {
      LOG.warn("{} inline calls outlived the stop grace; canceling them", inFlight.size());
      inFlight.keySet().forEach(t -> t.cancel(CancellationToken.Cause.WORKER_SHUTDOWN));
      if (!joinAll(cancelGrace)) {
        LOG.error(
            "{} inline calls did not complete; their leases will expire and be retried",
            inFlight.size());
      }
    }
  }

  private boolean joinAll(Duration within) {
    long until = System.nanoTime() + within.toNanos();
    for (CompletableFuture<CompletionAck> f : java.util.List.copyOf(inFlight.values())) {
      long left = until - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        f.get(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } catch (ExecutionException | TimeoutException e) {
        // Ended badly (the journal holds how), or still going: counted below.
      }
    }
    return inFlight.isEmpty();
  }

  /** Confirms and completes in one transaction when the call ran; otherwise only completes. */
  private CompletionAck finish(LeaseToken l, DeferredGate gate, StepOutcome outcome) {
    if (!gate.confirmed) {
      return journal.complete(l, outcome);
    }
    CompletionAck ack = journal.confirmAndComplete(l, gate.surfacePath, gate.output, outcome);
    // Confirmed and completed at once: the nearest an inline call comes to this point.
    FaultPoint.AFTER_CONFIRM_BEFORE_COMPLETE.reached();
    return ack;
  }

  /**
   * The effect verbs of an inline attempt: the election was made at admission, and the confirm is
   * kept for the completion, which journals both in one transaction.
   */
  private static final class DeferredGate implements EffectGate {
    private final String surfacePath;
    private final EffectElection election;
    private volatile boolean confirmed;
    private volatile Optional<JsonNode> output = Optional.empty();

    DeferredGate(String surfacePath, EffectElection election) {
      this.surfacePath = surfacePath;
      this.election = election;
    }

    @Override
    public EffectElection record(String path) {
      requireOwn(path);
      return election;
    }

    @Override
    public void confirm(String path, Optional<JsonNode> out) {
      requireOwn(path);
      output = out;
      confirmed = true;
    }

    @Override
    public boolean confirmsAtCompletion() {
      return true;
    }

    private void requireOwn(String path) {
      if (!surfacePath.equals(path)) {
        throw new IllegalStateException(
            "an inline call elected " + surfacePath + ", not " + path + " (an executor bug)");
      }
    }
  }
}
