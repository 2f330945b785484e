package dev.flows.kernel.journal;

import dev.flows.kernel.FlowsException;
import dev.flows.kernel.lifecycle.RunStatus;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A run whose admission {@link Admit.Deferred} held back while this process runs its attempt, and
 * how it was admitted once it is. Exactly one admission is made, by whichever of the attempt's
 * success, another verb naming the run, the starter's wait or the attempt's end comes first; the
 * others wait for it.
 */
public final class HeldAdmission {
  /**
   * The longest a starter waits for the attempt's thread to be scheduled before the body's own time
   * starts counting; past it the starter admits the run itself.
   */
  public static final Duration START_WAIT = Duration.ofSeconds(1);

  /**
   * The most memos a success carries into its run's admission. The starter waits for that
   * statement, which grows with the memos: a body that made more is admitted claimed first, so its
   * starter goes on while the long completion is written.
   */
  public static final int MOST_MEMOS_WITH_ADMISSION = 64;

  private final StartRun request;
  private final ClaimedAttempt attempt;
  private final Admit.Deferred mode;
  private final HeldAdmissions holder;
  private final CompletableFuture<StartedRun> admitted = new CompletableFuture<>();
  private final CountDownLatch started = new CountDownLatch(1);
  // Whoever sets it admits the run; the others wait for that admission, parked (a monitor held
  // across the admission's round trip would have them spin on a busy machine's cores).
  private final AtomicBoolean taken = new AtomicBoolean();
  // With answerAtAttemptEnd: the run as admitted with its end, told to the starter at the attempt's
  // end rather than at once.
  private volatile boolean answerAtAttemptEnd;
  private volatile StartedRun admittedWithEnd;

  HeldAdmission(
      StartRun request, ClaimedAttempt attempt, Admit.Deferred mode, HeldAdmissions holder) {
    this.request = request;
    this.attempt = attempt;
    this.mode = mode;
    this.holder = holder;
  }

  /** The attempt this process runs before its run is admitted. */
  public ClaimedAttempt attempt() {
    return attempt;
  }

  RunRef runId() {
    return attempt.lease().runId();
  }

  /** The attempt's thread runs: the body's time starts now. */
  public void bodyStarted() {
    started.countDown();
  }

  /**
   * The starter is answered of an admission with the attempt's end only once the attempt has ended
   * ({@link #attemptEnded(Runnable)}), so that it wakes once, with the attempt's end known and its
   * slot free, instead of once for the admission and again for the end. Called before the attempt's
   * thread starts.
   */
  public void answerAtAttemptEnd() {
    answerAtAttemptEnd = true;
  }

  /**
   * The admission, once made: waits up to {@code within} from the body's start (up to {@link
   * #START_WAIT} for its thread to be scheduled, which a busy machine delays) for another way to
   * make it, then admits the run claimed on this thread. Throws what the admission threw.
   */
  public StartedRun await(Duration within) {
    long begun = System.nanoTime();
    try {
      // First as if the body had started at once, its usual case: one wait, one wake.
      return admitted.get(within.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return awaitFromTheBodysStart(begun, within);
    } catch (InterruptedException e) {
      return admitClaimedInterrupted();
    } catch (ExecutionException e) {
      throw unwrapped(e.getCause());
    }
  }

  /**
   * The rest of {@link #await}, for a body that had not ended by then: {@code within} again,
   * counted from when this thread sees the body's thread started, as a starter that waited for that
   * first would count it (a cold body's first run needs it).
   */
  private StartedRun awaitFromTheBodysStart(long begun, Duration within) {
    try {
      started.await(START_WAIT.toNanos() - (System.nanoTime() - begun), TimeUnit.NANOSECONDS);
      return admitted.get(within.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      admitClaimed();
    } catch (InterruptedException e) {
      return admitClaimedInterrupted();
    } catch (ExecutionException e) {
      throw unwrapped(e.getCause());
    }
    return settled();
  }

  private StartedRun admitClaimedInterrupted() {
    // The body runs on whether or not the starter waits: its run must exist when start ends.
    Thread.interrupted();
    try {
      admitClaimed();
    } finally {
      Thread.currentThread().interrupt();
    }
    return settled();
  }

  /** The admission made, after it was: answers at once, interrupted or not. */
  private StartedRun settled() {
    try {
      return admitted.join();
    } catch (CompletionException failed) {
      throw unwrapped(failed.getCause());
    }
  }

  /** After the attempt ended: a run still not admitted is admitted for any worker to claim. */
  public void attemptEnded() {
    attemptEnded(() -> {});
  }

  /**
   * As {@link #attemptEnded()}; {@code meanwhile} runs once the run is admitted and before the
   * starter is answered of an admission with the attempt's end ({@link #answerAtAttemptEnd}).
   */
  public void attemptEnded(Runnable meanwhile) {
    if (taken.compareAndSet(false, true)) {
      settle(() -> holder.unheld().admit(request, Admit.queued()));
    }
    try {
      meanwhile.run();
    } finally {
      StartedRun withEnd = admittedWithEnd;
      if (withEnd != null) {
        admitted.complete(withEnd);
      }
    }
  }

  /**
   * Admits the run claimed by the attempt, unless it is admitted (or failed to be) already; when
   * another thread is admitting it, waits until it has.
   */
  void admitClaimed() {
    if (!taken.compareAndSet(false, true)) {
      awaitSettled();
      return;
    }
    settle(
        () -> {
          ClaimedStart c = holder.unheld().admit(request, mode.claimed());
          // The run id is new: a run met under it is this admission's own.
          return new StartedRun(runId(), true, c.started().status());
        });
  }

  /**
   * Admits the run with the attempt's success, in one transaction where the journal can; empty when
   * the run was admitted already (the completion then goes to the journal as any other). An
   * admission that failed with a retryable error stays held, so that the caller's retry of the
   * completion makes it again, answered from the run when the first try had committed.
   */
  Optional<CompletionAck> admitWithEnd(StepOutcome.Succeeded ok) {
    if (!taken.compareAndSet(false, true)) {
      awaitSettled();
      return Optional.empty();
    }
    CompletionAck ack;
    try {
      ack = holder.unheld().admit(request, mode.withItsEnd(ok)).orElseGet(this::endSeenByRetry);
    } catch (FlowsException e) {
      if (e.retryable()) {
        taken.set(false);
        throw e;
      }
      refused(e);
      throw e;
    } catch (RuntimeException e) {
      refused(e);
      throw e;
    }
    StartedRun run = new StartedRun(runId(), true, ack.runStatus());
    if (answerAtAttemptEnd) {
      admittedWithEnd = run;
    } else {
      admitted.complete(run);
    }
    holder.release(this);
    return Optional.of(ack);
  }

  /**
   * A refused completion may leave the admission in place (a journal that makes the two in turn):
   * the starter learns of the run, the body of the refusal.
   */
  private void refused(RuntimeException e) {
    try {
      holder
          .unheld()
          .run(runId())
          .ifPresent(r -> admitted.complete(new StartedRun(runId(), true, r.status())));
    } catch (RuntimeException unread) {
      e.addSuppressed(unread);
    }
    admitted.completeExceptionally(e);
    holder.release(this);
  }

  /**
   * The run id is this process's own and new, so a run already admitted under it is this
   * admission's, committed by a try whose answer was lost: it ended as the journal says.
   */
  private CompletionAck endSeenByRetry() {
    RunStatus status =
        holder
            .unheld()
            .run(runId())
            .orElseThrow(() -> new IllegalStateException("run " + runId() + " not admitted"))
            .status();
    return new CompletionAck(
        CompletionReason.SUCCESS, Disposition.STEP_DONE, Optional.empty(), status);
  }

  /** Until the admission another thread makes has ended, however it ended. */
  private void awaitSettled() {
    admitted.handle((run, failure) -> run).join();
  }

  private void settle(Supplier<StartedRun> admission) {
    try {
      admitted.complete(admission.get());
    } catch (RuntimeException e) {
      admitted.completeExceptionally(e);
      throw e;
    } finally {
      holder.release(this);
    }
  }

  private static RuntimeException unwrapped(Throwable cause) {
    return cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
  }
}
