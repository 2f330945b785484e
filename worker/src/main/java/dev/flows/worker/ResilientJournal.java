package dev.flows.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.LeaseConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.CancelOutcome;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.ExpiredAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.LeaseRenewals;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.SignalSent;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.event.RetryOnRetryEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A journal whose calls are retried on transient database faults ({@link TransientFaults}) with
 * bounded exponential backoff and jitter (resilience4j-retry, {@link WorkerConfig} {@code
 * dbRetry*}). Every verb is safe to repeat: the journal is idempotent by admission key, lease token
 * and attempt, and a repeated claim at worst opens attempts nobody runs, which expire and are
 * retried. A completion whose answer was lost and whose retry is refused ({@code lease_conflict},
 * or {@code run_terminal} when it ended the run) is resolved by reading the journal: if this
 * attempt's {@code step.completed} is there, the first try committed and its acknowledgement is
 * answered.
 */
public final class ResilientJournal implements Journal {
  private static final Logger LOG = LoggerFactory.getLogger(ResilientJournal.class);

  private final Journal delegate;
  private final Retry retry;
  private final AtomicReference<Thread> reporter = new AtomicReference<>();
  private final AtomicBoolean away = new AtomicBoolean();

  public ResilientJournal(Journal delegate, WorkerConfig config) {
    this.delegate = delegate;
    RetryConfig rc =
        RetryConfig.custom()
            .maxAttempts(config.dbRetryMaxAttempts())
            .intervalFunction(
                IntervalFunction.ofExponentialRandomBackoff(
                    config.dbRetryInitialBackoff(),
                    config.dbRetryMultiplier(),
                    config.dbRetryJitter(),
                    config.dbRetryMaxBackoff()))
            .retryOnException(TransientFaults::isTransient)
            .failAfterMaxAttempts(false)
            .build();
    this.retry = Retry.of("journal", rc);
    retry.getEventPublisher().onRetry(this::retrying);
  }

  /**
   * One line per backoff step while the database is away, however many threads are retrying (the
   * claimer, the reconciler, the lease keeper, attempts): the first thread to retry reports the
   * outage until the database answers again, or until it ends and another takes over.
   */
  private void retrying(RetryOnRetryEvent e) {
    away.set(true);
    Thread me = Thread.currentThread();
    Thread current = reporter.get();
    boolean mine =
        current == me
            || ((current == null || !current.isAlive()) && reporter.compareAndSet(current, me));
    if (mine) {
      LOG.warn(
          "database unavailable, retry {} in {} ms: {}",
          e.getNumberOfRetryAttempts(),
          e.getWaitInterval().toMillis(),
          TransientFaults.describe(e.getLastThrowable()));
    }
  }

  private <T> T call(Supplier<T> s) {
    T answer = Retry.decorateSupplier(retry, s).get();
    if (away.get() && away.compareAndSet(true, false)) {
      reporter.set(null);
      // Said at the warning level that announced the outage, so the operator sees it ended.
      LOG.warn("database reachable again");
    }
    return answer;
  }

  private void run(Runnable r) {
    call(
        () -> {
          r.run();
          return null;
        });
  }

  /**
   * Retried as every verb is. A retry after an unseen commit meets the run it admitted: queued or
   * claimed here, it is answered not created, with no attempt (a claimed attempt's lease then
   * expires and the journal re-drives it like any dead attempt's); with its end, empty (the caller,
   * who chose the run id, reads the run to learn how it ended); electing, refused {@code
   * run_admission_conflict} (the caller then awaits the run it admitted).
   */
  @Override
  public <R> R admit(StartRun request, dev.flows.kernel.journal.Admit<R> mode) {
    return call(() -> delegate.admit(request, mode));
  }

  @Override
  public List<ClaimedAttempt> claim(ClaimRequest request) {
    return call(() -> delegate.claim(request));
  }

  @Override
  public Instant heartbeat(LeaseToken lease) {
    return call(() -> delegate.heartbeat(lease));
  }

  @Override
  public EffectElection recordEffect(LeaseToken lease, String surfacePath) {
    return call(() -> delegate.recordEffect(lease, surfacePath));
  }

  /**
   * Safe to retry: a retry after an unseen commit finds the effect confirmed and writes nothing.
   */
  @Override
  public EffectElection recordConfirmedEffect(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    return call(() -> delegate.recordConfirmedEffect(lease, surfacePath, output));
  }

  /** Safe to retry as {@link #recordConfirmedEffect} is: a retry answers the memos deduped. */
  @Override
  public List<EffectElection> recordConfirmedEffects(LeaseToken lease, List<MemoEffect> memos) {
    return call(() -> delegate.recordConfirmedEffects(lease, memos));
  }

  @Override
  public void confirmEffect(LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    run(() -> delegate.confirmEffect(lease, surfacePath, output));
  }

  @Override
  public CompletionAck complete(LeaseToken lease, StepOutcome outcome) {
    AtomicBoolean faulted = new AtomicBoolean();
    return call(
        () -> {
          try {
            return delegate.complete(lease, outcome);
          } catch (LeaseConflictException | RunTerminalException refused) {
            if (faulted.get()) {
              return alreadyCompleted(lease).orElseThrow(() -> refused);
            }
            throw refused;
          } catch (RuntimeException e) {
            faulted.compareAndSet(false, TransientFaults.isTransient(e));
            throw e;
          }
        });
  }

  /** The acknowledgement of this attempt's completion, if the journal holds one. */
  private Optional<CompletionAck> alreadyCompleted(LeaseToken lease) {
    Optional<JournalEntry.StepCompleted> done =
        delegate.entries(lease.runId()).stream()
            .map(JournalRecord::entry)
            .filter(e -> e instanceof JournalEntry.StepCompleted)
            .map(e -> (JournalEntry.StepCompleted) e)
            .filter(c -> c.stepId().equals(lease.stepId()) && c.attempt() == lease.attempt())
            .findFirst();
    return done.flatMap(
        c ->
            delegate
                .run(lease.runId())
                .map(
                    r ->
                        new CompletionAck(
                            c.reason(), c.disposition(), c.nextAttemptAt(), r.status())));
  }

  @Override
  public CancelOutcome cancelRun(RunRef runId, String reason) {
    return call(() -> delegate.cancelRun(runId, reason));
  }

  /**
   * Retried only with a key: a keyless send whose answer was lost may have been kept, and a retry
   * would send it twice.
   */
  @Override
  public SignalSent sendSignal(RunRef runId, String name, JsonNode payload, Optional<String> key) {
    return key.isPresent()
        ? call(() -> delegate.sendSignal(runId, name, payload, key))
        : delegate.sendSignal(runId, name, payload, key);
  }

  /** Safe to repeat: a take whose effect is confirmed answers it and takes nothing more. */
  @Override
  public Optional<JsonNode> takeSignal(LeaseToken lease, String name, String surfacePath) {
    return call(() -> delegate.takeSignal(lease, name, surfacePath));
  }

  @Override
  public List<ExpiredAttempt> expireLeases() {
    return call(delegate::expireLeases);
  }

  @Override
  public dev.flows.kernel.journal.PruneReport prune(dev.flows.kernel.journal.PruneRequest request) {
    // A retried batch whose first commit was lost prunes the next batch: nothing is pruned twice.
    return call(() -> delegate.prune(request));
  }

  @Override
  public RunSnapshot resumeRun(RunRef runId, String by) {
    return call(() -> delegate.resumeRun(runId, by));
  }

  @Override
  public RunSnapshot upgradeRun(
      RunRef runId, dev.flows.kernel.journal.RunUpgrade upgrade, String by) {
    return call(() -> delegate.upgradeRun(runId, upgrade, by));
  }

  @Override
  public RunSnapshot resolveStep(
      RunRef runId, String stepId, Optional<JsonNode> performed, String by) {
    return call(() -> delegate.resolveStep(runId, stepId, performed, by));
  }

  @Override
  public RunSnapshot answerInput(
      RunRef runId, String stepId, dev.flows.kernel.journal.InputAnswer answer, String by) {
    return call(() -> delegate.answerInput(runId, stepId, answer, by));
  }

  @Override
  public boolean recordTask(
      LeaseToken lease, String surfacePath, dev.flows.kernel.journal.TaskNote task) {
    return call(() -> delegate.recordTask(lease, surfacePath, task));
  }

  @Override
  public boolean noteTaskCancel(
      RunRef runId, String stepId, String taskId, String reason, String by) {
    return call(() -> delegate.noteTaskCancel(runId, stepId, taskId, reason, by));
  }

  @Override
  public List<dev.flows.kernel.journal.TaskToCancel> tasksToCancel(int limit) {
    return call(() -> delegate.tasksToCancel(limit));
  }

  @Override
  public Optional<RunSnapshot> run(RunRef runId) {
    return call(() -> delegate.run(runId));
  }

  @Override
  public List<JournalRecord> entries(RunRef runId) {
    return call(() -> delegate.entries(runId));
  }

  @Override
  public List<RunRef> children(RunRef parent) {
    return call(() -> delegate.children(parent));
  }

  /**
   * Not retried: a transient failure waits out the timeout (so a dead database is not hammered) and
   * answers "not woken"; the caller's next claim goes through the retry.
   */
  @Override
  public boolean awaitWork(Duration timeout) throws InterruptedException {
    try {
      return delegate.awaitWork(timeout);
    } catch (RuntimeException e) {
      if (!TransientFaults.isTransient(e)) {
        throw e;
      }
      LOG.warn("waiting for work failed transiently: {}", String.valueOf(e));
      Thread.sleep(timeout);
      return false;
    }
  }

  // ---------------------------------------------------------------- inline effects

  /** Retried like {@link #complete}: a refused retry after an unseen commit reads the journal. */
  @Override
  public CompletionAck confirmAndComplete(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, StepOutcome outcome) {
    AtomicBoolean faulted = new AtomicBoolean();
    return call(
        () -> {
          try {
            return delegate.confirmAndComplete(lease, surfacePath, output, outcome);
          } catch (LeaseConflictException | RunTerminalException refused) {
            if (faulted.get()) {
              return alreadyCompleted(lease).orElseThrow(() -> refused);
            }
            throw refused;
          } catch (RuntimeException e) {
            faulted.compareAndSet(false, TransientFaults.isTransient(e));
            throw e;
          }
        });
  }

  /** Not retried: opening a watch does not touch the database. */
  @Override
  public RunWatch watchRun(RunRef runId) {
    return delegate.watchRun(runId);
  }

  @Override
  public dev.flows.kernel.journal.LiveText liveText() {
    return delegate.liveText();
  }

  /** A gauge, not a database call: nothing to retry. */
  @Override
  public int waitingForConnection() {
    return delegate.waitingForConnection();
  }

  // ---- batched lease renewal and timing

  /** Safe to retry: renewing a lease again only moves its deadline from a later "now". */
  @Override
  public LeaseRenewals renewLeases(Collection<LeaseToken> leases) {
    return call(() -> delegate.renewLeases(leases));
  }

  @Override
  public Optional<Duration> untilNextLeaseDeadline() {
    return call(delegate::untilNextLeaseDeadline);
  }

  @Override
  public Optional<Duration> untilNextClaimable(ClaimRequest request) {
    return call(() -> delegate.untilNextClaimable(request));
  }

  @Override
  public int noteUnaccepted(ClaimRequest request, String routePrefix, String reason) {
    return call(() -> delegate.noteUnaccepted(request, routePrefix, reason));
  }

  @Override
  public Schedules.Changed changeSchedule(ScheduleChange change) {
    return change instanceof ScheduleChange.Trigger
        // A trigger's tick is the journal's now: one repeated after a lost answer would be a
        // second.
        ? delegate.changeSchedule(change)
        : call(() -> delegate.changeSchedule(change));
  }

  @Override
  public Optional<ScheduleState> schedule(String name) {
    return call(() -> delegate.schedule(name));
  }

  @Override
  public List<ScheduleState> schedules() {
    return call(() -> delegate.schedules());
  }

  @Override
  public List<ScheduleRecord> scheduleEntries(String name) {
    return call(() -> delegate.scheduleEntries(name));
  }

  @Override
  public List<ScheduleState> dueSchedules(java.util.Set<String> flows, int limit) {
    return call(() -> delegate.dueSchedules(flows, limit));
  }

  @Override
  public List<ScheduleEntry> takeTicks(String name, StartRun template, String by) {
    return call(() -> delegate.takeTicks(name, template, by));
  }

  @Override
  public dev.flows.kernel.schedule.TickBatch takeDueTicks(
      java.util.Set<String> flows,
      int limit,
      java.util.function.Function<
              dev.flows.kernel.schedule.ScheduleDefinition, java.util.Optional<StartRun>>
          templates,
      String by) {
    return call(() -> delegate.takeDueTicks(flows, limit, templates, by));
  }
}
