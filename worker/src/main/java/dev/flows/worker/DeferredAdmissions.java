package dev.flows.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.CancelOutcome;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.ExpiredAttempt;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.LeaseRenewals;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.PruneReport;
import dev.flows.kernel.journal.PruneRequest;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.SignalSent;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.TaskNote;
import dev.flows.kernel.journal.TaskToCancel;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The journal of a process whose worker may run the body of a run before admitting it: the
 * starter's deferral ({@link Worker#startClaimed(StartRun, Duration)}), available to a worker built
 * on this journal. Such a run is admitted at the first of: its body's success, admitted with it in
 * one transaction ({@link Admit.WithItsEnd}); any other journal call naming the run (a memo batch,
 * a child, an effect, a renewal, a read, a failure's completion), admitted claimed first ({@link
 * Admit.ClaimedHere}); the starter's wait running out ({@link Deferred#await}); or its attempt
 * ending without either, admitted for any worker to claim ({@link Admit.Queued}). A success
 * carrying more than {@link #MOST_MEMOS_WITH_ADMISSION} memos is completed after a claimed
 * admission, so its starter does not wait for that long statement. Nobody outside this process can
 * name the run before its admission: its id is new and unseen. Every other call goes to the journal
 * as it is.
 */
public final class DeferredAdmissions implements Journal {
  private final Journal journal;
  private final Map<RunRef, Deferred> pending = new ConcurrentHashMap<>();

  /**
   * The longest a starter waits for a deferred body's thread to be scheduled before the body's own
   * time ({@code deferFor}) starts counting; past it the starter admits the run itself.
   */
  static final Duration START_WAIT = Duration.ofSeconds(1);

  /**
   * The most memos a success carries into its run's admission. The starter waits for that
   * statement, which grows with the memos: a body that made more is admitted claimed first (its
   * memo writer sends them at once, a call naming the run), so its starter goes on while the long
   * completion is written.
   */
  public static final int MOST_MEMOS_WITH_ADMISSION = 64;

  /**
   * Over {@code journal} (the port itself, not a wrapper of it), its outages retried as a worker's
   * are ({@link ResilientJournal}).
   */
  public DeferredAdmissions(Journal journal, WorkerConfig config) {
    this.journal = new ResilientJournal(journal, config);
  }

  /**
   * Holds back the admission of {@code request} (which names its run id) whose attempt {@code
   * attempt} this process's {@code worker} runs at once.
   */
  Deferred defer(StartRun request, ClaimedAttempt attempt, WorkerId worker, Duration lease) {
    Deferred d = new Deferred(request, attempt, worker, lease);
    pending.put(attempt.lease().runId(), d);
    return d;
  }

  /** A run whose admission is held back, and how it was admitted once it is. */
  final class Deferred {
    private final StartRun request;
    private final ClaimedAttempt attempt;
    private final WorkerId worker;
    private final Duration lease;
    private final CompletableFuture<StartedRun> admitted = new CompletableFuture<>();
    private final java.util.concurrent.CountDownLatch started =
        new java.util.concurrent.CountDownLatch(1);
    // Whoever sets it admits the run; the others wait for that admission, parked (a monitor held
    // across the admission's round trip would have them spin on a busy machine's cores).
    private final java.util.concurrent.atomic.AtomicBoolean taken =
        new java.util.concurrent.atomic.AtomicBoolean();

    private Deferred(StartRun request, ClaimedAttempt attempt, WorkerId worker, Duration lease) {
      this.request = request;
      this.attempt = attempt;
      this.worker = worker;
      this.lease = lease;
    }

    private RunRef runId() {
      return attempt.lease().runId();
    }

    /** The attempt's thread runs: the body's time starts now. */
    void bodyStarted() {
      started.countDown();
    }

    /**
     * The admission, once made: waits up to {@code within} from the body's start (up to {@link
     * #START_WAIT} for its thread to be scheduled, which a busy machine delays) for the body to
     * make it, then admits the run claimed on this thread. Throws what the admission threw.
     */
    StartedRun await(Duration within) {
      try {
        started.await(START_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        return admitted.get(within.toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        admitClaimed();
      } catch (InterruptedException e) {
        // The body runs on whether or not the starter waits: its run must exist when start ends.
        Thread.interrupted();
        try {
          admitClaimed();
        } finally {
          Thread.currentThread().interrupt();
        }
      } catch (ExecutionException e) {
        throw unwrapped(e);
      }
      try {
        return admitted.get();
      } catch (ExecutionException e) {
        throw unwrapped(e);
      } catch (InterruptedException e) {
        // admitClaimed returned only once the admission had ended: join answers at once.
        Thread.currentThread().interrupt();
        try {
          return admitted.join();
        } catch (java.util.concurrent.CompletionException failed) {
          throw failed.getCause() instanceof RuntimeException r ? r : failed;
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
            journal.admit(request, Admit.claimedHere(worker, lease));
            return new StartedRun(runId(), true, RunStatus.RUNNING);
          });
    }

    /**
     * Admits the run with the attempt's success, in one transaction; empty when the run was
     * admitted already (the completion then goes to the journal as any other).
     */
    Optional<CompletionAck> admitWithEnd(StepOutcome.Succeeded ok) {
      if (!taken.compareAndSet(false, true)) {
        awaitSettled();
        return Optional.empty();
      }
      try {
        CompletionAck ack =
            journal
                .admit(request, Admit.withItsEnd(worker, lease, ok))
                .orElseGet(this::endSeenByRetry);
        admitted.complete(new StartedRun(runId(), true, ack.runStatus()));
        return Optional.of(ack);
      } catch (RuntimeException e) {
        // A refused completion may leave the admission in place (a journal that makes the two
        // in turn): the starter learns of the run, the body of the refusal.
        try {
          journal
              .run(runId())
              .ifPresent(r -> admitted.complete(new StartedRun(runId(), true, r.status())));
        } catch (RuntimeException unread) {
          e.addSuppressed(unread);
        }
        admitted.completeExceptionally(e);
        throw e;
      } finally {
        pending.remove(runId(), this);
      }
    }

    /** After the attempt ended: a run still not admitted is admitted for any worker to claim. */
    void attemptEnded() {
      if (taken.compareAndSet(false, true)) {
        settle(() -> journal.admit(request, Admit.queued()));
      }
    }

    /** Until the admission another thread makes has ended, however it ended. */
    private void awaitSettled() {
      admitted.handle((run, failure) -> run).join();
    }

    private void settle(java.util.function.Supplier<StartedRun> admission) {
      try {
        admitted.complete(admission.get());
      } catch (RuntimeException e) {
        admitted.completeExceptionally(e);
        throw e;
      } finally {
        pending.remove(runId(), this);
      }
    }

    /**
     * The run id is this process's own and new, so a run already admitted under it is this
     * admission's, committed by a try whose answer was lost: it ended as the journal says.
     */
    private CompletionAck endSeenByRetry() {
      RunStatus status =
          journal
              .run(runId())
              .orElseThrow(() -> new IllegalStateException("run " + runId() + " not admitted"))
              .status();
      return new CompletionAck(
          CompletionReason.SUCCESS, Disposition.STEP_DONE, Optional.empty(), status);
    }
  }

  private static RuntimeException unwrapped(ExecutionException e) {
    return e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
  }

  /** Admits the run first if its admission is held back. */
  private void admitted(RunRef run) {
    if (!pending.isEmpty()) {
      Deferred d = pending.get(run);
      if (d != null) {
        d.admitClaimed();
      }
    }
  }

  private void admitted(LeaseToken lease) {
    admitted(lease.runId());
  }

  private void admittedParentOf(StartRun request) {
    request.parentRunId().ifPresent(this::admitted);
    request.runId().ifPresent(this::admitted);
  }

  @Override
  public CompletionAck complete(LeaseToken lease, StepOutcome outcome) {
    if (outcome instanceof StepOutcome.Succeeded ok
        && ok.memos().size() <= MOST_MEMOS_WITH_ADMISSION
        && !pending.isEmpty()) {
      Deferred d = pending.get(lease.runId());
      if (d != null && d.attempt.lease().equals(lease)) {
        Optional<CompletionAck> ack = d.admitWithEnd(ok);
        if (ack.isPresent()) {
          return ack.get();
        }
      }
    }
    admitted(lease);
    return journal.complete(lease, outcome);
  }

  @Override
  public <R> R admit(StartRun request, Admit<R> mode) {
    admittedParentOf(request);
    return journal.admit(request, mode);
  }

  @Override
  public List<ClaimedAttempt> claim(ClaimRequest request) {
    return journal.claim(request);
  }

  @Override
  public int noteUnaccepted(ClaimRequest request, String routePrefix, String reason) {
    return journal.noteUnaccepted(request, routePrefix, reason);
  }

  @Override
  public Instant heartbeat(LeaseToken lease) {
    admitted(lease);
    return journal.heartbeat(lease);
  }

  @Override
  public EffectElection recordEffect(LeaseToken lease, String surfacePath) {
    admitted(lease);
    return journal.recordEffect(lease, surfacePath);
  }

  @Override
  public void confirmEffect(LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    admitted(lease);
    journal.confirmEffect(lease, surfacePath, output);
  }

  @Override
  public EffectElection recordConfirmedEffect(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    admitted(lease);
    return journal.recordConfirmedEffect(lease, surfacePath, output);
  }

  @Override
  public boolean recordTask(LeaseToken lease, String surfacePath, TaskNote task) {
    admitted(lease);
    return journal.recordTask(lease, surfacePath, task);
  }

  @Override
  public boolean noteTaskCancel(
      RunRef runId, String stepId, String taskId, String reason, String by) {
    admitted(runId);
    return journal.noteTaskCancel(runId, stepId, taskId, reason, by);
  }

  @Override
  public List<TaskToCancel> tasksToCancel(int limit) {
    return journal.tasksToCancel(limit);
  }

  @Override
  public List<EffectElection> recordConfirmedEffects(LeaseToken lease, List<MemoEffect> memos) {
    admitted(lease);
    return journal.recordConfirmedEffects(lease, memos);
  }

  @Override
  public CancelOutcome cancelRun(RunRef runId, String reason) {
    admitted(runId);
    return journal.cancelRun(runId, reason);
  }

  @Override
  public List<ExpiredAttempt> expireLeases() {
    return journal.expireLeases();
  }

  @Override
  public RunSnapshot resumeRun(RunRef runId, String by) {
    admitted(runId);
    return journal.resumeRun(runId, by);
  }

  @Override
  public RunSnapshot resolveStep(
      RunRef runId, String stepId, Optional<JsonNode> performed, String by) {
    admitted(runId);
    return journal.resolveStep(runId, stepId, performed, by);
  }

  @Override
  public RunSnapshot answerInput(RunRef runId, String stepId, InputAnswer answer, String by) {
    admitted(runId);
    return journal.answerInput(runId, stepId, answer, by);
  }

  @Override
  public PruneReport prune(PruneRequest request) {
    return journal.prune(request);
  }

  @Override
  public Optional<RunSnapshot> run(RunRef runId) {
    admitted(runId);
    return journal.run(runId);
  }

  @Override
  public List<JournalRecord> entries(RunRef runId) {
    admitted(runId);
    return journal.entries(runId);
  }

  @Override
  public List<RunRef> children(RunRef parent) {
    admitted(parent);
    return journal.children(parent);
  }

  @Override
  public boolean awaitWork(Duration timeout) throws InterruptedException {
    return journal.awaitWork(timeout);
  }

  @Override
  public LeaseRenewals renewLeases(Collection<LeaseToken> leases) {
    leases.forEach(this::admitted);
    return journal.renewLeases(leases);
  }

  @Override
  public Optional<Duration> untilNextLeaseDeadline() {
    return journal.untilNextLeaseDeadline();
  }

  @Override
  public Optional<Duration> untilNextClaimable(ClaimRequest request) {
    return journal.untilNextClaimable(request);
  }

  @Override
  public SignalSent sendSignal(RunRef runId, String name, JsonNode payload, Optional<String> key) {
    admitted(runId);
    return journal.sendSignal(runId, name, payload, key);
  }

  @Override
  public Optional<JsonNode> takeSignal(LeaseToken lease, String name, String surfacePath) {
    admitted(lease);
    return journal.takeSignal(lease, name, surfacePath);
  }

  @Override
  public CompletionAck confirmAndComplete(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, StepOutcome outcome) {
    admitted(lease);
    return journal.confirmAndComplete(lease, surfacePath, output, outcome);
  }

  @Override
  public int waitingForConnection() {
    return journal.waitingForConnection();
  }

  @Override
  public RunWatch watchRun(RunRef runId) {
    admitted(runId);
    return journal.watchRun(runId);
  }

  @Override
  public Schedules.Changed changeSchedule(ScheduleChange change) {
    return journal.changeSchedule(change);
  }

  @Override
  public Optional<ScheduleState> schedule(String name) {
    return journal.schedule(name);
  }

  @Override
  public List<ScheduleState> schedules() {
    return journal.schedules();
  }

  @Override
  public List<ScheduleRecord> scheduleEntries(String name) {
    return journal.scheduleEntries(name);
  }

  @Override
  public List<ScheduleState> dueSchedules(java.util.Set<String> flows, int limit) {
    return journal.dueSchedules(flows, limit);
  }

  @Override
  public List<ScheduleEntry> takeTicks(String name, StartRun template, String by) {
    return journal.takeTicks(name, template, by);
  }
}
