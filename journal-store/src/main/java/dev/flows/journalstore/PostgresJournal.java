package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.CancelOutcome;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.ExpiredAttempt;
import dev.flows.kernel.journal.HeldAdmissions;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.LeaseRenewals;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.LiveText;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.SignalSent;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.lifecycle.TransitionLog;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The Postgres {@link Journal}: each verb is delegated to the class that owns it (see the package
 * doc for which, and for the two data-access styles). This class owns what spans verbs: the pool,
 * the cache of claimed step specs, and the listener that tells this process's watchers of a run
 * after each commit that changed it.
 */
public final class PostgresJournal implements Journal, AutoCloseable {
  private final JournalDb db;
  private final WorkListener listener;
  private final StepSpecCache stepSpecs;
  private final HeldAdmissions held = new HeldAdmissions(new Unheld());
  private final Admission admission;
  private final Claims claims;
  private final AttemptVerbs attemptVerbs;
  private final MemoEffects memos;
  private final AttemptEnds ends;
  private final StoredFunctionVerbs oneTrip;
  private final Cancels cancels;
  private final Expiry expiry;
  private final OperatorVerbs operator;
  private final RunUpgrading upgrades;
  private final Retention retention;
  private final LeaseRenewal renewal;
  private final RunQueries reads;
  private final SignalVerbs signals;
  private final TaskVerbs tasks;
  private final ScheduleVerbs schedules;
  private final LiveText live;

  private PostgresJournal(
      DataSource dataSource,
      JournalStoreConfig config,
      Optional<HikariDataSource> ownedPool,
      WorkListener listener,
      Optional<InstantSource> testClock) {
    this.db =
        new JournalDb(
            dataSource, ownedPool, testClock, listener.sessions(), config.payloadLimits());
    this.listener = listener;
    if (listener.sessions().transactionPooled()) {
      // Refused before any verb: through a transaction pooler a run would fail mid-way.
      listener.close();
      db.close();
      throw listener.sessions().refusal();
    }
    this.stepSpecs = new StepSpecCache(config.groupCommit().stepSpecCacheSize());
    Fence fence = new Fence(stepSpecs);
    this.admission =
        new Admission(
            db,
            stepSpecs,
            new SucceededAdmissions(db, config.groupCommit()),
            this::completeHeld,
            held);
    this.claims = new Claims(db, stepSpecs);
    this.attemptVerbs = new AttemptVerbs(db, fence);
    this.memos = new MemoEffects(db, stepSpecs, attemptVerbs, config.groupCommit());
    this.ends = new AttemptEnds(db, fence, attemptVerbs);
    this.oneTrip = new StoredFunctionVerbs(db);
    this.cancels = new Cancels(db);
    this.expiry = new Expiry(db, config.expiryBatchSize());
    this.operator = new OperatorVerbs(db);
    this.upgrades = new RunUpgrading(db);
    this.retention = new Retention(db);
    this.renewal = new LeaseRenewal(db);
    this.reads = new RunQueries(db);
    this.signals = new SignalVerbs(db, fence, attemptVerbs);
    this.tasks = new TaskVerbs(db, fence);
    this.schedules = new ScheduleVerbs(db, admission, cancels);
    this.live = new PostgresLiveText(db);
  }

  /**
   * Opens a HikariCP pool on {@code config} (closed with the journal). Every way of opening a
   * journal refuses {@code config_invalid} when its listener finds the URL served by a connection
   * pooler in transaction mode ({@code SessionCheck}).
   */
  public static PostgresJournal connect(JournalStoreConfig config) {
    return open(config, Optional.empty());
  }

  /**
   * As {@link #connect(JournalStoreConfig)}, with every physical connection (the pool's and the
   * listener's) made by {@code server}, which knows where the server is at each connect: a journal
   * on a server that comes back on another port reconnects there. {@code config}'s URL and
   * credentials are then not used to connect.
   */
  public static PostgresJournal connect(JournalStoreConfig config, DataSource server) {
    HikariConfig h = poolConfig(config);
    h.setJdbcUrl(null);
    h.setUsername(null);
    h.setPassword(null);
    h.setDataSource(server);
    HikariDataSource pool = new HikariDataSource(h);
    return new PostgresJournal(
        pool,
        config,
        Optional.of(pool),
        new WorkListener(config, server::getConnection),
        Optional.empty());
  }

  /**
   * A journal for one short command (read a run, list, send a signal): every verb on {@code
   * statements}, which the caller owns and closes after the journal (typically one connection,
   * handed out again for each verb, one verb at a time); no pool, no thread. The LISTEN connection,
   * made by {@code server}, opens only when something first waits or watches, and the check for a
   * transaction pooler runs then. {@code config} gives the journal's limits; its URL is only named
   * in messages.
   */
  public static PostgresJournal forOneCommand(
      DataSource statements, JournalStoreConfig config, DataSource server) {
    return new PostgresJournal(
        statements,
        config,
        Optional.empty(),
        WorkListener.lazy(config, server::getConnection),
        Optional.empty());
  }

  /**
   * A journal on a pool the caller owns and closes after the journal (an application's own pool, or
   * one whose connections it instruments). {@code config} still gives the notification listener's
   * URL and credentials, and the journal's limits.
   */
  public static PostgresJournal using(DataSource pool, JournalStoreConfig config) {
    return new PostgresJournal(
        pool,
        config,
        Optional.empty(),
        new WorkListener(config, WorkListener.Connector.of(config)),
        Optional.empty());
  }

  /**
   * A journal on a pool the caller owns that also takes its LISTEN connection from that pool, held
   * for the journal's life: for a pool whose URL and credentials the caller does not hand over.
   * {@code config} gives the journal's limits; its URL is only named in messages.
   */
  public static PostgresJournal listeningOn(DataSource pool, JournalStoreConfig config) {
    return new PostgresJournal(
        pool, config, Optional.empty(), new WorkListener(config, pool), Optional.empty());
  }

  /**
   * For tests: as {@link #connect(JournalStoreConfig)}, with every statement taking "now" from
   * {@code testClock} instead of the database clock (leases, backoff, deadlines, entry times), so a
   * test advances time instead of sleeping. Its instants are used at microsecond precision,
   * Postgres' own.
   */
  public static PostgresJournal connect(JournalStoreConfig config, InstantSource testClock) {
    return open(config, Optional.of(testClock));
  }

  private static PostgresJournal open(JournalStoreConfig config, Optional<InstantSource> clock) {
    HikariDataSource pool = new HikariDataSource(poolConfig(config));
    return new PostgresJournal(
        pool,
        config,
        Optional.of(pool),
        new WorkListener(config, WorkListener.Connector.of(config)),
        clock);
  }

  /** The run and step transitions this journal has taken. */
  public TransitionLog transitions() {
    return db.transitions();
  }

  /** The HikariCP settings {@link #connect} opens its pool with. */
  public static HikariConfig poolConfig(JournalStoreConfig config) {
    return JournalPools.poolConfig(config);
  }

  /** HikariCP's count of threads waiting for a connection; 0 on a pool that is not HikariCP. */
  @Override
  public int waitingForConnection() {
    return db.waitingForConnection();
  }

  @Override
  public void close() {
    listener.close();
    db.close();
  }

  /** The journal's admission and read, around the admissions it holds back. */
  private final class Unheld implements HeldAdmissions.Unheld {
    @Override
    public <R> R admit(StartRun r, Admit<R> mode) {
      return admission.admit(r, mode);
    }

    @Override
    public Optional<RunSnapshot> run(RunRef runId) {
      return reads.run(runId);
    }
  }

  @Override
  public <R> R admit(StartRun r, Admit<R> mode) {
    held.admitBefore(r);
    return admission.admit(r, mode);
  }

  @Override
  public List<ClaimedAttempt> claim(ClaimRequest request) {
    return claims.claim(request);
  }

  @Override
  public Instant heartbeat(LeaseToken lease) {
    held.admitBefore(lease);
    return attemptVerbs.heartbeat(lease);
  }

  @Override
  public LeaseRenewals renewLeases(Collection<LeaseToken> leases) {
    held.admitBefore(leases);
    return renewal.renewLeases(leases);
  }

  @Override
  public EffectElection recordEffect(LeaseToken lease, String surfacePath) {
    held.admitBefore(lease);
    return attemptVerbs.recordEffect(lease, surfacePath);
  }

  @Override
  public EffectElection recordConfirmedEffect(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    held.admitBefore(lease);
    return memos.recordConfirmedEffect(lease, surfacePath, output);
  }

  @Override
  public List<EffectElection> recordConfirmedEffects(LeaseToken lease, List<MemoEffect> batch) {
    held.admitBefore(lease);
    return memos.recordConfirmedEffects(lease, batch);
  }

  @Override
  public void confirmEffect(LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    held.admitBefore(lease);
    attemptVerbs.confirmEffect(lease, surfacePath, output);
  }

  @Override
  public CompletionAck complete(LeaseToken lease, StepOutcome outcome) {
    Optional<CompletionAck> withAdmission = held.complete(lease, outcome);
    if (withAdmission.isPresent()) {
      return withAdmission.get();
    }
    return completeHeld(lease, outcome);
  }

  /** The completion, with no admission held back for its run (or inside that admission). */
  private CompletionAck completeHeld(LeaseToken lease, StepOutcome outcome) {
    try {
      CompletionAck ack =
          outcome instanceof StepOutcome.Succeeded ok
              ? ok.memos().isEmpty()
                  ? oneTrip.succeed(lease, ok)
                  : memos.succeedAfter(lease, ok, oneTrip)
              : ends.complete(lease, outcome);
      return signalled(lease.runId(), ack);
    } finally {
      // The attempt is over (or its lease is gone): a later attempt's claim caches the spec again.
      // Kept, it would hold a suspended body's spec for as long as the body waits.
      stepSpecs.remove(lease.runId(), lease.stepId());
    }
  }

  @Override
  public CompletionAck confirmAndComplete(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, StepOutcome outcome) {
    held.admitBefore(lease);
    CompletionAck ack =
        outcome instanceof StepOutcome.Succeeded ok
            ? oneTrip.confirmAndSucceed(lease, surfacePath, output, ok)
            : ends.confirmAndComplete(lease, surfacePath, output, outcome);
    return signalled(lease.runId(), ack);
  }

  @Override
  public SignalSent sendSignal(RunRef runId, String name, JsonNode payload, Optional<String> key) {
    held.admitBefore(runId);
    return signalled(runId, signals.send(runId, name, payload, key));
  }

  @Override
  public Optional<JsonNode> takeSignal(LeaseToken lease, String name, String surfacePath) {
    held.admitBefore(lease);
    return signals.take(lease, name, surfacePath);
  }

  @Override
  public CancelOutcome cancelRun(RunRef runId, String reason) {
    held.admitBefore(runId);
    return signalled(runId, cancels.cancelRun(runId, reason));
  }

  @Override
  public List<ExpiredAttempt> expireLeases() {
    return expiry.expireLeases();
  }

  @Override
  public dev.flows.kernel.journal.PruneReport prune(dev.flows.kernel.journal.PruneRequest request) {
    return retention.prune(request);
  }

  @Override
  public RunSnapshot resumeRun(RunRef runId, String by) {
    held.admitBefore(runId);
    operator.resumeRun(runId, by);
    return run(runId).orElseThrow(() -> Refusals.runNotFound(runId));
  }

  @Override
  public RunSnapshot upgradeRun(
      RunRef runId, dev.flows.kernel.journal.RunUpgrade upgrade, String by) {
    held.admitBefore(runId);
    upgrades.upgradeRun(runId, upgrade, by);
    return run(runId).orElseThrow(() -> Refusals.runNotFound(runId));
  }

  @Override
  public RunSnapshot resolveStep(
      RunRef runId, String stepId, Optional<JsonNode> performed, String by) {
    held.admitBefore(runId);
    operator.resolveStep(runId, stepId, performed, by);
    return run(runId).orElseThrow(() -> Refusals.runNotFound(runId));
  }

  @Override
  public boolean recordTask(
      LeaseToken lease, String surfacePath, dev.flows.kernel.journal.TaskNote task) {
    held.admitBefore(lease);
    return tasks.recordTask(lease, surfacePath, task);
  }

  @Override
  public boolean noteTaskCancel(
      RunRef runId, String stepId, String taskId, String reason, String by) {
    held.admitBefore(runId);
    return tasks.noteTaskCancel(runId, stepId, taskId, reason, by);
  }

  @Override
  public List<dev.flows.kernel.journal.TaskToCancel> tasksToCancel(int limit) {
    return tasks.tasksToCancel(limit);
  }

  @Override
  public RunSnapshot answerInput(
      RunRef runId, String stepId, dev.flows.kernel.journal.InputAnswer answer, String by) {
    held.admitBefore(runId);
    operator.answerInput(runId, stepId, answer, by);
    return run(runId).orElseThrow(() -> Refusals.runNotFound(runId));
  }

  @Override
  public Optional<RunSnapshot> run(RunRef runId) {
    held.admitBefore(runId);
    return reads.run(runId);
  }

  @Override
  public List<JournalRecord> entries(RunRef runId) {
    held.admitBefore(runId);
    return reads.entries(runId);
  }

  @Override
  public List<RunRef> children(RunRef parent) {
    held.admitBefore(parent);
    return reads.children(parent);
  }

  @Override
  public Optional<Duration> untilNextLeaseDeadline() {
    return reads.untilNextLeaseDeadline();
  }

  @Override
  public Optional<Duration> untilNextClaimable(ClaimRequest request) {
    return reads.untilNextClaimable(request);
  }

  @Override
  public int noteUnaccepted(ClaimRequest request, String routePrefix, String reason) {
    return reads.noteUnaccepted(request, routePrefix, reason);
  }

  @Override
  public boolean awaitWork(Duration timeout) throws InterruptedException {
    return listener.await(timeout);
  }

  /** Watches wake on NOTIFY for the run, and at once for changes made through this journal. */
  @Override
  public RunWatch watchRun(RunRef runId) {
    held.admitBefore(runId);
    return listener.watch(runId.value());
  }

  @Override
  public LiveText liveText() {
    return live;
  }

  /** Tells this process's watchers of {@code runId} that it changed (after the commit). */
  private <T> T signalled(RunRef runId, T committed) {
    listener.changed(runId.value());
    return committed;
  }

  @Override
  public Schedules.Changed changeSchedule(ScheduleChange change) {
    return schedules.change(change);
  }

  @Override
  public Optional<ScheduleState> schedule(String name) {
    return schedules.schedule(name);
  }

  @Override
  public List<ScheduleState> schedules() {
    return schedules.all();
  }

  @Override
  public List<ScheduleRecord> scheduleEntries(String name) {
    return schedules.entries(name);
  }

  @Override
  public List<ScheduleState> dueSchedules(java.util.Set<String> flows, int limit) {
    return schedules.due(flows, limit);
  }

  @Override
  public List<ScheduleEntry> takeTicks(String name, StartRun template, String by) {
    return schedules.take(name, template, by);
  }

  @Override
  public dev.flows.kernel.schedule.TickBatch takeDueTicks(
      java.util.Set<String> flows,
      int limit,
      java.util.function.Function<
              dev.flows.kernel.schedule.ScheduleDefinition, java.util.Optional<StartRun>>
          templates,
      String by) {
    return schedules.takeDue(flows, limit, templates, by);
  }
}
