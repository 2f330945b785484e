package dev.flows.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.ClaimedStart;
import dev.flows.kernel.journal.HeldAdmission;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.Routes;
import dev.flows.kernel.spec.StepSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * Runs a worker starts itself ({@link Worker#startClaimed}): admitted already claimed by it ({@link
 * Admit.ClaimedHere}), with no work notification, no claim and no renewal before the work (the
 * lease was granted by the journal's clock in the admission), or, when the starter defers, held
 * back ({@link Admit.Deferred}) and admitted once the body ends or needs the journal. The attempt
 * is leased, renewed and handed back exactly like a claimed one; if this process dies, the lease
 * expires and another worker takes the run over.
 */
final class LocalStarts {
  private final Journal journal;
  private final RunningAttempts attempts;
  private final Semaphore slots;
  private final WorkerId id;
  private final WorkerConfig config;
  private final InstantSource clock;

  LocalStarts(
      Journal journal,
      RunningAttempts attempts,
      Semaphore slots,
      WorkerId id,
      WorkerConfig config,
      InstantSource clock) {
    this.journal = journal;
    this.attempts = attempts;
    this.slots = slots;
    this.id = id;
    this.config = config;
    this.clock = clock;
  }

  /**
   * Starts {@code request}'s attempt on a free slot when {@code claim} would take its run's step;
   * empty when it would not or no slot is free. When the admission key had admitted the run
   * already, answers it as a queued admission does, with no attempt and no end.
   */
  Optional<Worker.ClaimedHere> start(StartRun request, ClaimRequest claim, Duration deferFor) {
    if (!wouldClaim(request, claim) || !slots.tryAcquire()) {
      return Optional.empty();
    }
    if (deferFor.isPositive() && request.runId().isEmpty()) {
      return Optional.of(deferred(request, deferFor));
    }
    Instant sent = clock.instant();
    ClaimedStart c;
    try {
      c = journal.admit(request, Admit.claimedHere(id, config.defaultLease()));
    } catch (RuntimeException e) {
      slots.release();
      throw e;
    }
    if (c.attempt().isEmpty()) {
      slots.release();
      return Optional.of(new Worker.ClaimedHere(c.started(), Optional.empty()));
    }
    CompletableFuture<Optional<JsonNode>> end = new CompletableFuture<>();
    attempts.launch(
        c.attempt().get(), sent, LeaseOptions.defaults().skipFirstRenewal(), Optional.of(end));
    return Optional.of(new Worker.ClaimedHere(c.started(), Optional.of(end)));
  }

  /**
   * The body starts under a new run id before its run is admitted; answers once the run is. The
   * attempt's lease is timed from before the admission, as a claim's is from before the claim.
   */
  private Worker.ClaimedHere deferred(StartRun request, Duration deferFor) {
    StartRun named = request.withRunId(RunRef.random());
    Instant sent = clock.instant();
    Duration lease = config.defaultLease();
    HeldAdmission admission;
    try {
      admission = journal.admit(named, Admit.deferred(id, lease, sent.plus(lease)));
    } catch (RuntimeException e) {
      slots.release();
      throw e;
    }
    ClaimedAttempt attempt = admission.attempt();
    CompletableFuture<Optional<JsonNode>> attemptEnd = new CompletableFuture<>();
    CompletableFuture<Optional<JsonNode>> end = new CompletableFuture<>();
    // The run exists before anyone waiting for the attempt's end hears of it; a starter whose run
    // was admitted with its end is answered after the end is known and the slot free, so it wakes
    // once and its next start finds the slot.
    admission.answerAtAttemptEnd();
    attemptEnd.whenComplete(
        (output, failure) -> {
          try {
            admission.attemptEnded(() -> settle(end, output, failure));
          } catch (RuntimeException e) {
            end.completeExceptionally(e);
          }
        });
    attempts.launch(
        attempt,
        sent,
        LeaseOptions.defaults().skipFirstRenewal(),
        Optional.of(attemptEnd),
        admission::bodyStarted);
    return new Worker.ClaimedHere(admission.await(deferFor), Optional.of(end));
  }

  private static <T> void settle(CompletableFuture<T> end, T value, Throwable failure) {
    if (failure != null) {
      end.completeExceptionally(failure);
    } else {
      end.complete(value);
    }
  }

  /** Whether {@code claim} would take the one step of {@code request}'s run. */
  private static boolean wouldClaim(StartRun request, ClaimRequest claim) {
    if (request.parentRunId().isPresent() || request.spec().steps().size() != 1) {
      return false;
    }
    StepSpec only = request.spec().steps().getFirst();
    return Lifecycle.created(only) == StepStatus.READY
        && claim.kinds().contains(only.kind())
        && claim.accepts(Routes.of(only))
        && claim.serves(request.queue());
  }
}
