package dev.flows.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.CancelOutcome;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.ExpiredAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** A journal that forwards every call; tests override the verbs they want to disturb. */
public class ForwardingJournal implements Journal {
  protected final Journal delegate;

  public ForwardingJournal(Journal delegate) {
    this.delegate = delegate;
  }

  @Override
  public <R> R admit(StartRun request, Admit<R> mode) {
    return delegate.admit(request, mode);
  }

  @Override
  public List<ClaimedAttempt> claim(ClaimRequest request) {
    return delegate.claim(request);
  }

  @Override
  public Instant heartbeat(LeaseToken lease) {
    return delegate.heartbeat(lease);
  }

  @Override
  public EffectElection recordEffect(LeaseToken lease, String surfacePath) {
    return delegate.recordEffect(lease, surfacePath);
  }

  @Override
  public void confirmEffect(LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    delegate.confirmEffect(lease, surfacePath, output);
  }

  @Override
  public CompletionAck complete(LeaseToken lease, StepOutcome outcome) {
    return delegate.complete(lease, outcome);
  }

  @Override
  public CancelOutcome cancelRun(RunRef runId, String reason) {
    return delegate.cancelRun(runId, reason);
  }

  @Override
  public dev.flows.kernel.journal.SignalSent sendSignal(
      RunRef runId, String name, JsonNode payload, Optional<String> key) {
    return delegate.sendSignal(runId, name, payload, key);
  }

  @Override
  public Optional<JsonNode> takeSignal(LeaseToken lease, String name, String surfacePath) {
    return delegate.takeSignal(lease, name, surfacePath);
  }

  @Override
  public List<ExpiredAttempt> expireLeases() {
    return delegate.expireLeases();
  }

  @Override
  public dev.flows.kernel.journal.PruneReport prune(dev.flows.kernel.journal.PruneRequest request) {
    return delegate.prune(request);
  }

  @Override
  public RunSnapshot resumeRun(RunRef runId, String by) {
    return delegate.resumeRun(runId, by);
  }

  @Override
  public RunSnapshot upgradeRun(
      RunRef runId, dev.flows.kernel.journal.RunUpgrade upgrade, String by) {
    return delegate.upgradeRun(runId, upgrade, by);
  }

  @Override
  public RunSnapshot resolveStep(
      RunRef runId, String stepId, Optional<JsonNode> performed, String by) {
    return delegate.resolveStep(runId, stepId, performed, by);
  }

  @Override
  public RunSnapshot answerInput(
      RunRef runId, String stepId, dev.flows.kernel.journal.InputAnswer answer, String by) {
    return delegate.answerInput(runId, stepId, answer, by);
  }

  @Override
  public boolean recordTask(
      LeaseToken lease, String surfacePath, dev.flows.kernel.journal.TaskNote task) {
    return delegate.recordTask(lease, surfacePath, task);
  }

  @Override
  public boolean noteTaskCancel(
      RunRef runId, String stepId, String taskId, String reason, String by) {
    return delegate.noteTaskCancel(runId, stepId, taskId, reason, by);
  }

  @Override
  public List<dev.flows.kernel.journal.TaskToCancel> tasksToCancel(int limit) {
    return delegate.tasksToCancel(limit);
  }

  @Override
  public Optional<RunSnapshot> run(RunRef runId) {
    return delegate.run(runId);
  }

  @Override
  public List<JournalRecord> entries(RunRef runId) {
    return delegate.entries(runId);
  }

  @Override
  public List<RunRef> children(RunRef parent) {
    return delegate.children(parent);
  }

  @Override
  public boolean awaitWork(Duration timeout) throws InterruptedException {
    return delegate.awaitWork(timeout);
  }

  @Override
  public int waitingForConnection() {
    return delegate.waitingForConnection();
  }

  // ---- inline effects

  @Override
  public CompletionAck confirmAndComplete(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, StepOutcome outcome) {
    return delegate.confirmAndComplete(lease, surfacePath, output, outcome);
  }

  @Override
  public dev.flows.kernel.journal.RunWatch watchRun(RunRef runId) {
    return delegate.watchRun(runId);
  }

  // ---- batched lease renewal and timing (perf-lease). renewLeases is left to the port's default,
  // which calls heartbeat once per lease: a test that disturbs heartbeat disturbs batched
  // renewals too.

  @Override
  public Optional<Duration> untilNextLeaseDeadline() {
    return delegate.untilNextLeaseDeadline();
  }

  @Override
  public Optional<Duration> untilNextClaimable(ClaimRequest request) {
    return delegate.untilNextClaimable(request);
  }

  @Override
  public int noteUnaccepted(ClaimRequest request, String routePrefix, String reason) {
    return delegate.noteUnaccepted(request, routePrefix, reason);
  }

  @Override
  public Schedules.Changed changeSchedule(ScheduleChange change) {
    return delegate.changeSchedule(change);
  }

  @Override
  public Optional<ScheduleState> schedule(String name) {
    return delegate.schedule(name);
  }

  @Override
  public List<ScheduleState> schedules() {
    return delegate.schedules();
  }

  @Override
  public List<ScheduleRecord> scheduleEntries(String name) {
    return delegate.scheduleEntries(name);
  }

  @Override
  public List<ScheduleState> dueSchedules(java.util.Set<String> flows, int limit) {
    return delegate.dueSchedules(flows, limit);
  }

  @Override
  public List<ScheduleEntry> takeTicks(String name, StartRun template, String by) {
    return delegate.takeTicks(name, template, by);
  }

  @Override
  public dev.flows.kernel.schedule.TickBatch takeDueTicks(
      java.util.Set<String> flows,
      int limit,
      java.util.function.Function<
              dev.flows.kernel.schedule.ScheduleDefinition, java.util.Optional<StartRun>>
          templates,
      String by) {
    return delegate.takeDueTicks(flows, limit, templates, by);
  }
}
