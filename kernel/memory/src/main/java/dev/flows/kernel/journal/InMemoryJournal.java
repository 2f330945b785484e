package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.MemoryState.RunRow;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.TransitionLog;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import dev.flows.kernel.spec.Routes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The reference journal: every rule of the contract in plain Java under one lock, timed by an
 * injected clock. Used by kernel tests, by worker tests that need no database, and as the
 * executable statement of the semantics the Postgres journal must match. Each verb reads the clock
 * once and runs under the lock ({@link MemoryWakeups}) on the rows of {@link MemoryState}: claims
 * and a live attempt's verbs in {@link MemoryAttempts}, admission in {@link MemoryAdmission}, ends
 * in {@link MemoryEnds}, operator verbs in {@link MemoryOperator}.
 */
public final class InMemoryJournal implements Journal {
  private final Clock clock;
  private final MemoryWakeups wakeups = new MemoryWakeups();
  private final MemoryState state;
  private final MemoryAttempts attempts;
  private final MemorySignals signals;
  private final MemoryEnds ends;
  private final HeldAdmissions held = new HeldAdmissions(new Unheld());
  private final MemoryAdmission admission;
  private final MemoryOperator operator;
  private final MemoryRetention retention;
  private final MemoryTasks tasks;
  private final MemorySchedules schedules;

  public InMemoryJournal(Clock clock) {
    this(clock, PayloadLimits.DEFAULTS);
  }

  /**
   * A journal refusing run inputs (a schedule's too), signal payloads, input answers and resolved
   * outputs past {@code limits} ({@link PayloadLimits#maxRunInputBytes}, {@link
   * PayloadLimits#maxSignalBytes}, {@link PayloadLimits#maxAnswerBytes}, {@link
   * PayloadLimits#maxStepOutputBytes}).
   */
  public InMemoryJournal(Clock clock, PayloadLimits limits) {
    this.clock = clock;
    this.state = new MemoryState(wakeups, limits);
    this.attempts = new MemoryAttempts(state);
    this.signals = new MemorySignals(state, wakeups, attempts);
    this.ends = new MemoryEnds(state, wakeups, attempts, signals);
    this.admission = new MemoryAdmission(state, wakeups, attempts, ends, held);
    this.operator = new MemoryOperator(state, wakeups, ends);
    this.retention = new MemoryRetention(state);
    this.tasks = new MemoryTasks(state);
    this.schedules = new MemorySchedules(state, admission, ends);
  }

  /** The run and step transitions this journal has taken. */
  public TransitionLog transitions() {
    return state.transitions;
  }

  @Override
  public LiveText liveText() {
    return state.live;
  }

  /** The journal's admission and read, around the admissions it holds back. */
  private final class Unheld implements HeldAdmissions.Unheld {
    @Override
    public <R> R admit(StartRun r, Admit<R> mode) {
      return verb(now -> admission.admit(r, mode, now));
    }

    @Override
    public Optional<RunSnapshot> run(RunRef runId) {
      return wakeups.locked(() -> Optional.ofNullable(state.runs.get(runId)).map(state::snapshot));
    }
  }

  /**
   * A verb naming {@code run}: a run held back is admitted first (outside the lock, which its
   * admission takes).
   */
  private <T> T verb(RunRef run, java.util.function.Function<Instant, T> body) {
    held.admitBefore(run);
    return verb(body);
  }

  private <T> T verb(LeaseToken lease, java.util.function.Function<Instant, T> body) {
    return verb(lease.runId(), body);
  }

  /** A verb: under the lock, with "now" read once from the clock. */
  private <T> T verb(java.util.function.Function<Instant, T> body) {
    return wakeups.locked(() -> body.apply(clock.instant()));
  }

  @Override
  public <R> R admit(StartRun r, Admit<R> mode) {
    held.admitBefore(r);
    return verb(now -> admission.admit(r, mode, now));
  }

  @Override
  public List<ClaimedAttempt> claim(ClaimRequest req) {
    return verb(now -> attempts.claim(req, now));
  }

  @Override
  public Instant heartbeat(LeaseToken lease) {
    return verb(lease, now -> attempts.heartbeat(lease, now));
  }

  @Override
  public LeaseRenewals renewLeases(Collection<LeaseToken> leases) {
    if (leases.isEmpty()) {
      return LeaseRenewals.none();
    }
    held.admitBefore(leases);
    return verb(now -> attempts.renewLeases(leases, now));
  }

  @Override
  public EffectElection recordEffect(LeaseToken lease, String surfacePath) {
    return verb(lease, now -> attempts.recordEffect(lease, surfacePath, now));
  }

  @Override
  public EffectElection recordConfirmedEffect(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    return verb(lease, now -> attempts.recordConfirmedEffect(lease, surfacePath, output, now));
  }

  @Override
  public List<EffectElection> recordConfirmedEffects(LeaseToken lease, List<MemoEffect> memos) {
    return verb(
        lease,
        now -> {
          List<EffectElection> answers = new java.util.ArrayList<>(memos.size());
          for (MemoEffect m : memos) {
            answers.add(attempts.recordConfirmedEffect(lease, m.surfacePath(), m.output(), now));
          }
          return answers;
        });
  }

  @Override
  public void confirmEffect(LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    verb(
        lease,
        now -> {
          attempts.confirmEffect(lease, surfacePath, output, now);
          return null;
        });
  }

  @Override
  public CompletionAck complete(LeaseToken lease, StepOutcome outcome) {
    Optional<CompletionAck> withAdmission = held.complete(lease, outcome);
    if (withAdmission.isPresent()) {
      return withAdmission.get();
    }
    return verb(
        now -> {
          if (outcome instanceof StepOutcome.Succeeded ok) {
            for (MemoEffect m : ok.memos()) {
              attempts.recordConfirmedEffect(lease, m.surfacePath(), m.output(), now);
            }
          }
          return ends.complete(lease, outcome, now);
        });
  }

  @Override
  public CompletionAck confirmAndComplete(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, StepOutcome outcome) {
    return verb(lease, now -> ends.confirmAndComplete(lease, surfacePath, output, outcome, now));
  }

  @Override
  public SignalSent sendSignal(RunRef runId, String name, JsonNode payload, Optional<String> key) {
    return verb(runId, now -> signals.send(runId, name, payload, key, now));
  }

  @Override
  public Optional<JsonNode> takeSignal(LeaseToken lease, String name, String surfacePath) {
    return verb(lease, now -> signals.take(lease, name, surfacePath, now));
  }

  @Override
  public CancelOutcome cancelRun(RunRef runId, String reason) {
    return verb(runId, now -> ends.cancelRun(runId, reason, now));
  }

  @Override
  public List<ExpiredAttempt> expireLeases() {
    return verb(ends::expireLeases);
  }

  @Override
  public PruneReport prune(PruneRequest request) {
    return verb(now -> retention.prune(request, now));
  }

  @Override
  public RunSnapshot resumeRun(RunRef runId, String by) {
    return verb(runId, now -> operator.resumeRun(runId, by, now));
  }

  @Override
  public RunSnapshot upgradeRun(RunRef runId, RunUpgrade upgrade, String by) {
    return verb(runId, now -> operator.upgradeRun(runId, upgrade, by, now));
  }

  @Override
  public RunSnapshot resolveStep(
      RunRef runId, String stepId, Optional<JsonNode> performed, String by) {
    return verb(runId, now -> operator.resolveStep(runId, stepId, performed, by, now));
  }

  @Override
  public RunSnapshot answerInput(RunRef runId, String stepId, InputAnswer answer, String by) {
    return verb(runId, now -> operator.answerInput(runId, stepId, answer, by, now));
  }

  @Override
  public boolean recordTask(LeaseToken lease, String surfacePath, TaskNote task) {
    return verb(lease, now -> tasks.recordTask(lease, surfacePath, task, now));
  }

  @Override
  public boolean noteTaskCancel(
      RunRef runId, String stepId, String taskId, String reason, String by) {
    return verb(runId, now -> tasks.noteTaskCancel(runId, stepId, taskId, reason, by, now));
  }

  @Override
  public List<TaskToCancel> tasksToCancel(int limit) {
    return verb(now -> tasks.tasksToCancel(limit));
  }

  @Override
  public Optional<RunSnapshot> run(RunRef runId) {
    held.admitBefore(runId);
    return new Unheld().run(runId);
  }

  @Override
  public List<JournalRecord> entries(RunRef runId) {
    held.admitBefore(runId);
    return wakeups.locked(() -> state.entries(runId));
  }

  @Override
  public List<RunRef> children(RunRef parent) {
    held.admitBefore(parent);
    return wakeups.locked(
        () ->
            state.runs.values().stream()
                .filter(r -> r.parent.equals(Optional.of(parent)))
                .map(r -> r.id)
                .toList());
  }

  @Override
  public boolean awaitWork(Duration timeout) throws InterruptedException {
    return wakeups.awaitWork(timeout);
  }

  @Override
  public RunWatch watchRun(RunRef runId) {
    held.admitBefore(runId);
    return wakeups.watch(runId);
  }

  @Override
  public Optional<Duration> untilNextLeaseDeadline() {
    return verb(
        now ->
            state.runs.values().stream()
                .filter(r -> !r.status.terminal())
                .flatMap(r -> r.steps.values().stream())
                .filter(s -> s.status == StepStatus.RUNNING)
                .map(s -> s.leaseDeadline)
                .min(Comparator.naturalOrder())
                .map(d -> d.isAfter(now) ? Duration.between(now, d) : Duration.ZERO));
  }

  @Override
  public int noteUnaccepted(ClaimRequest req, String routePrefix, String reason) {
    return verb(now -> attempts.noteUnaccepted(req, routePrefix, reason, now));
  }

  @Override
  public Optional<Duration> untilNextClaimable(ClaimRequest request) {
    return verb(
        now ->
            state.runs.values().stream()
                .filter((RunRow r) -> r.status == RunStatus.RUNNING && request.serves(r.queue))
                .flatMap(r -> r.steps.values().stream())
                .filter(
                    s ->
                        s.status == StepStatus.READY
                            && s.notBefore.isAfter(now)
                            && request.kinds().contains(s.spec.kind())
                            && request.accepts(Routes.of(s.spec)))
                .map(s -> s.notBefore)
                .min(Comparator.naturalOrder())
                .map(t -> Duration.between(now, t)));
  }

  @Override
  public Schedules.Changed changeSchedule(ScheduleChange change) {
    return verb(now -> schedules.change(change, now));
  }

  @Override
  public Optional<ScheduleState> schedule(String name) {
    return verb(now -> schedules.schedule(name));
  }

  @Override
  public List<ScheduleState> schedules() {
    return verb(now -> schedules.all());
  }

  @Override
  public List<ScheduleRecord> scheduleEntries(String name) {
    return verb(now -> schedules.entries(name));
  }

  @Override
  public List<ScheduleState> dueSchedules(Set<String> flows, int limit) {
    return verb(now -> schedules.due(flows, limit, now));
  }

  @Override
  public List<ScheduleEntry> takeTicks(String name, StartRun template, String by) {
    return verb(now -> schedules.take(name, template, by, now));
  }

  @Override
  public dev.flows.kernel.schedule.TickBatch takeDueTicks(
      Set<String> flows,
      int limit,
      java.util.function.Function<dev.flows.kernel.schedule.ScheduleDefinition, Optional<StartRun>>
          templates,
      String by) {
    return verb(now -> schedules.takeDue(flows, limit, templates, by, now));
  }
}
