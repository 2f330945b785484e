package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.LeaseConflictException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.RunAdmissionConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.CancelOutcome;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.ClaimedEffect;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.ExpiredAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalEntry.EffectRef;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.LeaseRenewals;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunCompletionReason;
import dev.flows.kernel.journal.RunId;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.Backoff;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.PreparedBatch;

/**
 * The Postgres {@link Journal}. Every verb is one transaction (Postgres' default READ COMMITTED)
 * that takes "now" from the database clock once, locks what it changes (the run before its steps,
 * always, so lockers never deadlock; claimers lock only steps and skip locked ones), asks the
 * kernel's {@link Lifecycle} for every status change, writes with the expected old status (and, for
 * a worker's verbs, the lease) in the WHERE clause, and journals in the same transaction. All SQL
 * lives in {@code sql/*.sql} resources.
 */
public final class PostgresJournal implements Journal, AutoCloseable {
  private final Jdbi jdbi;
  private final DataSource dataSource;
  private final JournalStoreConfig config;
  private final WorkListener listener;
  private final Optional<HikariDataSource> ownedPool;
  // Group commit of recordConfirmedEffect (see the "group commit" block below).
  private final StepSpecCache stepSpecs;
  private final GroupCommit<MemoCall, Boolean> memoWrites;

  private PostgresJournal(
      DataSource dataSource, JournalStoreConfig config, Optional<HikariDataSource> ownedPool) {
    this.jdbi = Jdbi.create(dataSource);
    this.dataSource = dataSource;
    this.config = config;
    this.ownedPool = ownedPool;
    this.listener = new WorkListener(config);
    this.stepSpecs = new StepSpecCache(config.groupCommit().stepSpecCacheSize());
    this.memoWrites =
        new GroupCommit<>(
            this::writeMemosFast,
            config.groupCommit().maxBatch(),
            config.groupCommit().maxInFlight());
  }

  /** Opens a HikariCP pool on {@code config} (closed with the journal). */
  public static PostgresJournal connect(JournalStoreConfig config) {
    HikariDataSource pool = new HikariDataSource(poolConfig(config));
    return new PostgresJournal(pool, config, Optional.of(pool));
  }

  /**
   * A journal on a pool the caller owns and closes after the journal (an application's own pool, or
   * one whose connections it instruments). {@code config} still gives the notification listener's
   * URL and credentials, and the journal's limits.
   */
  public static PostgresJournal using(DataSource pool, JournalStoreConfig config) {
    return new PostgresJournal(pool, config, Optional.empty());
  }

  /** The HikariCP settings {@link #connect} opens its pool with. */
  public static HikariConfig poolConfig(JournalStoreConfig config) {
    HikariConfig h = new HikariConfig();
    h.setJdbcUrl(config.jdbcUrl());
    config.user().ifPresent(h::setUsername);
    config.password().ifPresent(h::setPassword);
    h.setMaximumPoolSize(config.poolSize());
    h.setConnectionTimeout(config.connectionTimeout().toMillis());
    h.setPoolName("flows-journal");
    // Fail on first use, not at construction, so a journal can be built while Postgres starts.
    h.setInitializationFailTimeout(-1);
    return h;
  }

  /** HikariCP's count of threads waiting for a connection; 0 on a pool that is not HikariCP. */
  @Override
  public int waitingForConnection() {
    if (dataSource instanceof HikariDataSource pool) {
      HikariPoolMXBean gauge = pool.getHikariPoolMXBean();
      return gauge == null ? 0 : gauge.getThreadsAwaitingConnection();
    }
    return 0;
  }

  @Override
  public void close() {
    listener.close();
    ownedPool.ifPresent(HikariDataSource::close);
  }

  // ---------------------------------------------------------------- start

  @Override
  public StartedRun startRun(StartRun r) {
    String hash = RunSpecJson.hash(r.spec());
    return tx(
        h -> {
          Instant now = now(h);
          // A concurrent start with the same id or key makes our insert do nothing; the
          // second pass then finds that run.
          for (int pass = 0; ; pass++) {
            Optional<StartedRun> existing = existingAdmission(h, r, hash);
            if (existing.isPresent()) {
              return existing.get();
            }
            RunId runId = r.runId().orElseGet(RunId::random);
            if (insertRun(h, r, runId, hash, now)) {
              return spawn(h, r, runId, hash, now);
            }
            if (pass > 0) {
              throw new IllegalStateException("run insert conflicted twice for " + runId);
            }
          }
        });
  }

  private Optional<StartedRun> existingAdmission(Handle h, StartRun r, String hash) {
    if (r.runId().isPresent()) {
      Optional<RunRow> byId = lockRun(h, r.runId().get());
      if (byId.isPresent()) {
        RunRow row = byId.get();
        boolean sameKey = row.admissionKey().equals(r.admissionKey());
        if (row.tombstone() || (row.status().terminal() && !sameKey)) {
          throw new RunTerminalException(
              "run " + row.runId() + " is " + describe(row) + " and cannot be started",
              row.runId().value());
        }
        if (!sameKey) {
          throw new RunAdmissionConflictException(row.admissionKey(), row.runId().value());
        }
        return Optional.of(sameSpecOrConflict(row, r, hash));
      }
    }
    Optional<RunRow> byKey =
        query(h, "run_by_admission_key", q -> q.bind("admissionKey", r.admissionKey()), RUN)
            .stream()
            .findFirst();
    if (byKey.isPresent()
        && r.runId().isPresent()
        && !r.runId().get().equals(byKey.get().runId())) {
      // The key admitted another run id: this request cannot be the same admission.
      throw new RunAdmissionConflictException(r.admissionKey(), byKey.get().runId().value());
    }
    return byKey.map(row -> sameSpecOrConflict(row, r, hash));
  }

  private static StartedRun sameSpecOrConflict(RunRow row, StartRun r, String hash) {
    if (!row.specHash().equals(hash)) {
      throw new RunAdmissionConflictException(r.admissionKey(), row.runId().value());
    }
    return new StartedRun(row.runId(), false, row.status());
  }

  private static String describe(RunRow row) {
    return row.tombstone() ? "tombstoned (canceled before it started)" : row.status().wire();
  }

  private boolean insertRun(Handle h, StartRun r, RunId runId, String hash, Instant now) {
    RunStatus status = Lifecycle.run(RunTransition.SPAWNED, Optional.empty());
    return h.createUpdate(Sql.text("run_insert"))
            .bind("runId", runId.value())
            .bind("name", r.spec().name())
            .bind("status", status.wire())
            .bind("parentRunId", r.parentRunId().map(RunId::value).orElse(null))
            .bind("admissionKey", r.admissionKey())
            .bind("spec", EntryCodec.text(RunSpecJson.write(r.spec())))
            .bind("specHash", hash)
            .bind("createdBy", r.createdBy())
            .bind("now", now.toString())
            .bind("queue", r.queue())
            .execute()
        == 1;
  }

  private StartedRun spawn(Handle h, StartRun r, RunId runId, String hash, Instant now) {
    PreparedBatch batch = h.prepareBatch(Sql.text("step_insert"));
    boolean anyReady = false;
    List<StepSpec> steps = r.spec().steps();
    for (int i = 0; i < steps.size(); i++) {
      StepSpec s = steps.get(i);
      StepStatus status = s.dependsOn().isEmpty() ? StepStatus.READY : StepStatus.WAITING;
      anyReady |= status == StepStatus.READY;
      batch
          .bind("runId", runId.value())
          .bind("stepId", s.id())
          .bind("position", i)
          .bind("kind", s.kind().wire())
          .bind("route", dev.flows.kernel.spec.Routes.of(s))
          .bind("status", status.wire())
          .bindArray("dependsOn", String.class, s.dependsOn())
          .bind("maxIterations", s.maxIterations())
          .bind("spec", EntryCodec.text(RunSpecJson.writeStep(s)))
          .bind("now", now.toString())
          .add();
    }
    batch.execute();
    append(
        h,
        now,
        new JournalEntry.RunSpawned(
            runId,
            RunSpecJson.write(r.spec()),
            hash,
            r.parentRunId(),
            r.admissionKey(),
            r.createdBy()));
    if (anyReady) {
      notifyWork(h, runId);
    }
    return new StartedRun(runId, true, RunStatus.RUNNING);
  }

  // ---------------------------------------------------------------- claim

  @Override
  public List<ClaimedAttempt> claim(ClaimRequest request) {
    if (request.capacity() == 0 || request.kinds().isEmpty()) {
      return List.of();
    }
    String[] kinds = request.kinds().stream().map(StepKind::wire).sorted().toArray(String[]::new);
    // The status the kernel's table gives a claimed step; checked per row below.
    StepStatus running = StepTransition.CLAIMED.to();
    List<ClaimedAttempt> claimed = new ArrayList<>();
    // One statement, one round trip, autocommit (sql/claim_open.sql): pick, open, journal.
    autocommitRows(
        CLAIM_OPEN,
        (sql, ps) -> {
          sql.bind(ps, "kinds", kinds);
          sql.bind(ps, "anyRoute", request.routes().isEmpty());
          sql.bind(
              ps,
              "routes",
              request.routes().map(r -> r.toArray(String[]::new)).orElse(new String[0]));
          sql.bind(ps, "routePrefixes", request.routePrefixes().toArray(String[]::new));
          sql.bind(ps, "anyQueue", request.queues().isEmpty());
          sql.bind(
              ps,
              "queues",
              request.queues().map(q -> q.toArray(String[]::new)).orElse(new String[0]));
          sql.bind(ps, "capacity", request.capacity());
          sql.bind(ps, "defaultLeaseMs", request.defaultLease().toMillis());
          sql.bind(ps, "runningStatus", running.wire());
          sql.bind(ps, "workerId", request.workerId().value());
        },
        rs -> {
          StepRow s = STEP.map(rs, null);
          // The transition the statement took, checked against the kernel's table and recorded.
          Lifecycle.step(StepTransition.CLAIMED, s.status());
          int attempt = rs.getInt("new_attempt");
          String leaseId = rs.getString("new_lease_id");
          String key = rs.getString("idempotency_key");
          long leaseMs = rs.getLong("new_lease_ms");
          // The statement derives these as Keys and the spec do; a difference would fence every
          // later verb of the attempt against the wrong lease, so it stops here instead.
          if (attempt != s.attempts() + 1
              || !leaseId.equals(Keys.leaseId(s.runId(), s.stepId(), attempt))
              || !key.equals(Keys.idempotencyKey(s.runId(), s.stepId()))
              || leaseMs != s.spec().leaseMs().orElse(request.defaultLease().toMillis())) {
            throw new IllegalStateException(
                "claim_open.sql derived another attempt, lease or key than the kernel for "
                    + s.runId()
                    + "/"
                    + s.stepId());
          }
          stepSpecs.put(s.runId(), s.stepId(), s.spec());
          claimed.add(
              new ClaimedAttempt(
                  new LeaseToken(s.runId(), s.stepId(), attempt, leaseId),
                  instant(rs, "new_deadline"),
                  leaseMs,
                  s.spec(),
                  key,
                  Optional.ofNullable(rs.getString("parent_run_id")).map(RunId::new)));
        });
    return claimed;
  }

  private static final PositionalSql CLAIM_OPEN = PositionalSql.of(Sql.text("claim_open"));

  // ---------------------------------------------------------------- fenced verbs

  @Override
  public Instant heartbeat(LeaseToken lease) {
    return tx(
        h -> {
          Instant now = now(h);
          live(h, lease, now);
          return query(
                  h,
                  "step_heartbeat",
                  q -> fence(q, lease).bind("now", now.toString()),
                  (rs, ctx) -> instant(rs, "lease_deadline"))
              .stream()
              .findFirst()
              .orElseThrow(() -> lost(lease));
        });
  }

  @Override
  public EffectElection recordEffect(LeaseToken lease, String surfacePath) {
    return tx(h -> recordIn(h, lease, surfacePath, now(h)));
  }

  @Override
  public EffectElection recordConfirmedEffect(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    Optional<StepSpecCache.Cached> cached = stepSpecs.get(lease.runId(), lease.stepId());
    if (cached.isPresent()
        && cached.get().spec().body() instanceof StepBody.Agent a
        && a.declares(surfacePath)) {
      MemoCall call = MemoCall.of(lease, surfacePath, cached.get().idempotencyKey(), output);
      if (memoWrites.submit(call)) {
        return new EffectElection(call.idempotencyKey(), false, false, Optional.empty());
      }
    }
    return recordConfirmedEffectOneByOne(lease, surfacePath, output);
  }

  /**
   * The general path: every case the group commit does not take (a step whose spec is not cached,
   * an existing election, a lost lease, a terminal run, an undeclared surface) answers or refuses
   * here exactly as a lone transaction would.
   */
  private EffectElection recordConfirmedEffectOneByOne(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    return tx(
        h -> {
          Instant now = now(h);
          EffectElection e = recordIn(h, lease, surfacePath, now);
          if (!e.deduped()) {
            confirmIn(h, lease, surfacePath, output, now);
          }
          return e;
        });
  }

  private EffectElection recordIn(Handle h, LeaseToken lease, String surfacePath, Instant now) {
    StepRow s = live(h, lease, now);
    boolean declared = s.spec().body() instanceof StepBody.Agent a && a.declares(surfacePath);
    if (!declared) {
      throw new FlowsException(
          ErrorCode.EFFECT_NOT_DECLARED,
          "surface " + surfacePath + " is not declared by step " + s.stepId(),
          lease.place(),
          "declare it in the agent step's surfaces.external");
    }
    String key = Keys.idempotencyKey(lease.runId(), lease.stepId());
    Optional<ElectionRow> election = election(h, lease, surfacePath);
    if (election.isEmpty()) {
      expectOne(
          h.createUpdate(Sql.text("election_insert"))
              .bind("runId", lease.runId().value())
              .bind("stepId", lease.stepId())
              .bind("surfacePath", surfacePath)
              .bind("attempt", lease.attempt())
              .bind("idempotencyKey", key)
              .bind("now", now.toString())
              .execute(),
          "elect " + surfacePath);
      append(h, now, recorded(lease, surfacePath, key, false));
      return new EffectElection(key, false, false, Optional.empty());
    }
    ElectionRow e = election.get();
    if (e.confirmed()) {
      return new EffectElection(key, true, false, e.output());
    }
    if (e.attempt() == lease.attempt()) {
      return new EffectElection(key, false, false, Optional.empty());
    }
    expectOne(
        h.createUpdate(Sql.text("election_take_over"))
            .bind("runId", lease.runId().value())
            .bind("stepId", lease.stepId())
            .bind("surfacePath", surfacePath)
            .bind("attempt", lease.attempt())
            .bind("now", now.toString())
            .execute(),
        "take over " + surfacePath);
    append(h, now, recorded(lease, surfacePath, key, true));
    return new EffectElection(key, false, true, Optional.empty());
  }

  private static JournalEntry.EffectRecorded recorded(
      LeaseToken lease, String surfacePath, String key, boolean takenOver) {
    return new JournalEntry.EffectRecorded(
        lease.runId(), lease.stepId(), lease.attempt(), surfacePath, key, takenOver);
  }

  @Override
  public void confirmEffect(LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    tx(
        h -> {
          confirmIn(h, lease, surfacePath, output, now(h));
          return null;
        });
  }

  private void confirmIn(
      Handle h, LeaseToken lease, String surfacePath, Optional<JsonNode> output, Instant now) {
    live(h, lease, now);
    Optional<ElectionRow> election = election(h, lease, surfacePath);
    if (election.isEmpty() || election.get().attempt() != lease.attempt()) {
      throw new FlowsException(
          ErrorCode.EFFECT_NOT_RECORDED,
          "attempt " + lease.attempt() + " holds no election for " + surfacePath,
          lease.place(),
          "record the effect before performing it, then confirm it");
    }
    if (election.get().confirmed()) {
      return;
    }
    expectOne(
        h.createUpdate(Sql.text("election_confirm"))
            .bind("runId", lease.runId().value())
            .bind("stepId", lease.stepId())
            .bind("surfacePath", surfacePath)
            .bind("attempt", lease.attempt())
            .bind("output", output.map(EntryCodec::text).orElse(null))
            .bind("now", now.toString())
            .execute(),
        "confirm " + surfacePath);
    append(
        h,
        now,
        new JournalEntry.EffectConfirmed(
            lease.runId(),
            lease.stepId(),
            lease.attempt(),
            surfacePath,
            election.get().idempotencyKey(),
            output));
  }

  @Override
  public CompletionAck complete(LeaseToken lease, StepOutcome outcome) {
    try {
      if (outcome instanceof StepOutcome.Succeeded ok) {
        return succeedInOneTrip(lease, ok);
      }
      return signalled(lease.runId(), tx(h -> completeIn(h, lease, outcome, now(h))));
    } finally {
      // The attempt is over (or its lease is gone): a later attempt's claim caches the spec again.
      // Kept, it would hold a suspended body's spec for as long as the body waits.
      stepSpecs.remove(lease.runId(), lease.stepId());
    }
  }

  private CompletionAck completeIn(Handle h, LeaseToken lease, StepOutcome outcome, Instant now) {
    RunRow run = lockRun(h, lease.runId()).orElseThrow(() -> runNotFound(lease.runId()));
    StepRow s = live(h, lease, now);
    List<ElectionRow> mine = electionsOf(h, lease);
    List<EffectRef> confirmed =
        mine.stream()
            .filter(ElectionRow::confirmed)
            .map(e -> new EffectRef(e.surfacePath(), e.idempotencyKey()))
            .toList();
    return switch (outcome) {
      // A success is one round trip of its own (flows.succeed_attempt from complete,
      // flows.confirm_and_succeed from confirmAndComplete): neither sends one here.
      case StepOutcome.Succeeded ok ->
          throw new IllegalStateException("a success is completed by flows.succeed_attempt");
      case StepOutcome.Failed f -> fail(h, run, s, lease, f, confirmed, now);
      case StepOutcome.Parked p -> park(h, run, s, lease, p, confirmed, now);
      case StepOutcome.Suspended w -> suspend(h, run, s, lease, w, confirmed, now);
    };
  }

  /**
   * After a step succeeded: waiting steps whose dependencies all succeeded become ready, and a
   * running run whose steps all succeeded completes. Answers the run's status.
   */
  private RunStatus afterSuccess(Handle h, RunRow run, Instant now) {
    List<StepRow> unblocked =
        query(h, "steps_unblocked", q -> q.bind("runId", run.runId().value()), STEP);
    for (StepRow w : unblocked) {
      setStatus(h, w, StepTransition.DEPENDENCIES_MET, Optional.of(now), now);
    }
    if (!unblocked.isEmpty()) {
      notifyWork(h, run.runId());
      return run.status();
    }
    boolean allSucceeded =
        !h.createQuery(Sql.text("steps_unsucceeded_exist"))
            .bind("runId", run.runId().value())
            .mapTo(Boolean.class)
            .one();
    if (allSucceeded && run.status() == RunStatus.RUNNING) {
      return finishRun(
          h, run, RunTransition.ALL_STEPS_SUCCEEDED, RunCompletionReason.SUCCESS, null, now);
    }
    return run.status();
  }

  private CompletionAck fail(
      Handle h,
      RunRow run,
      StepRow s,
      LeaseToken lease,
      StepOutcome.Failed f,
      List<EffectRef> confirmed,
      Instant now) {
    StepSpec spec = s.spec();
    Optional<JsonNode> tail = Optional.ofNullable(f.trajectoryTail());
    if (f.retryable()
        && lease.attempt() - suspensions(h, lease.runId(), lease.stepId()) < spec.maxIterations()) {
      Instant next = now.plusMillis(backoffMs(spec, lease));
      endFenced(h, s, lease, StepTransition.COMPLETED_RETRY, f.reason(), null, next, now);
      append(
          h,
          now,
          new JournalEntry.StepCompleted(
              lease.runId(),
              lease.stepId(),
              lease.attempt(),
              f.reason(),
              Disposition.RETRY,
              Optional.empty(),
              confirmed,
              tail,
              Optional.of(next)));
      notifyWork(h, lease.runId());
      return new CompletionAck(f.reason(), Disposition.RETRY, Optional.of(next), run.status());
    }
    CompletionReason reason = f.retryable() ? CompletionReason.RETRIES_EXHAUSTED : f.reason();
    endFenced(h, s, lease, StepTransition.COMPLETED_FAILED, reason, null, null, now);
    append(
        h,
        now,
        new JournalEntry.StepCompleted(
            lease.runId(),
            lease.stepId(),
            lease.attempt(),
            reason,
            Disposition.STEP_DONE,
            Optional.empty(),
            confirmed,
            tail,
            Optional.empty()));
    RunStatus after = failRun(h, run, lease.stepId(), now);
    return new CompletionAck(reason, Disposition.STEP_DONE, Optional.empty(), after);
  }

  private CompletionAck park(
      Handle h,
      RunRow run,
      StepRow s,
      LeaseToken lease,
      StepOutcome.Parked p,
      List<EffectRef> confirmed,
      Instant now) {
    endFenced(h, s, lease, StepTransition.COMPLETED_PARKED, p.reason(), null, null, now);
    append(
        h,
        now,
        new JournalEntry.StepCompleted(
            lease.runId(),
            lease.stepId(),
            lease.attempt(),
            p.reason(),
            Disposition.PARK,
            Optional.empty(),
            confirmed,
            Optional.ofNullable(p.trajectoryTail()),
            Optional.empty()));
    RunStatus after = run.status();
    if (run.status() == RunStatus.RUNNING) {
      RunStatus to = Lifecycle.run(RunTransition.STEP_PARKED, Optional.of(run.status()));
      expectOne(
          h.createUpdate(Sql.text("run_set_status"))
              .bind("runId", run.runId().value())
              .bind("from", run.status().wire())
              .bind("to", to.wire())
              .execute(),
          "park run " + run.runId());
      after = to;
      // Whoever awaits this run (a parent body) must learn it parked.
      notifyWork(h, run.runId());
    }
    return new CompletionAck(p.reason(), Disposition.PARK, Optional.empty(), after);
  }

  /**
   * Ends the attempt suspended on its child {@code w.awaiting()}: the child is marked (under its
   * row lock) so that its leaving {@code running} readies this step (V7's trigger); a child that
   * has left it already readies the step at once.
   */
  private CompletionAck suspend(
      Handle h,
      RunRow run,
      StepRow s,
      LeaseToken lease,
      StepOutcome.Suspended w,
      List<EffectRef> confirmed,
      Instant now) {
    Optional<RunStatus> child =
        h.createQuery(Sql.text("run_mark_wakes_parent"))
            .bind("childId", w.awaiting().value())
            .bind("parentId", lease.runId().value())
            .map((rs, ctx) -> RunStatus.fromWire(rs.getString("status")))
            .findOne();
    if (child.isEmpty()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "run " + w.awaiting() + " is not a child of " + lease.runId(),
          lease.place(),
          "suspend only on a child run the body started");
    }
    boolean settled = child.get() != RunStatus.RUNNING;
    Instant next = settled ? now : now.plus(w.recheckAfter());
    endFenced(h, s, lease, StepTransition.SUSPENDED, CompletionReason.SUSPENDED, null, next, now);
    append(
        h,
        now,
        new JournalEntry.StepCompleted(
            lease.runId(),
            lease.stepId(),
            lease.attempt(),
            CompletionReason.SUSPENDED,
            Disposition.RETRY,
            Optional.empty(),
            confirmed,
            Optional.empty(),
            Optional.of(next)));
    if (settled) {
      notifyWork(h, lease.runId());
    }
    return new CompletionAck(
        CompletionReason.SUSPENDED, Disposition.RETRY, Optional.of(next), run.status());
  }

  private static int suspensions(Handle h, RunId runId, String stepId) {
    return h.createQuery(Sql.text("step_suspensions"))
        .bind("runId", runId.value())
        .bind("stepId", stepId)
        .mapTo(Integer.class)
        .one();
  }

  private RunStatus failRun(Handle h, RunRow run, String stepId, Instant now) {
    if (run.status() != RunStatus.RUNNING) {
      return run.status();
    }
    return finishRun(
        h, run, RunTransition.STEP_FAILED, RunCompletionReason.STEP_FAILED, stepId, now);
  }

  private RunStatus finishRun(
      Handle h,
      RunRow run,
      RunTransition t,
      RunCompletionReason reason,
      String failedStepId,
      Instant now) {
    RunStatus to = Lifecycle.run(t, Optional.of(run.status()));
    expectOne(
        h.createUpdate(Sql.text("run_finish"))
            .bind("runId", run.runId().value())
            .bind("from", run.status().wire())
            .bind("to", to.wire())
            .bind("reason", reason.wire())
            .bind("now", now.toString())
            .execute(),
        "finish run " + run.runId());
    append(
        h,
        now,
        new JournalEntry.RunCompleted(run.runId(), reason, Optional.ofNullable(failedStepId)));
    notifyWork(h, run.runId());
    return to;
  }

  private void endFenced(
      Handle h,
      StepRow s,
      LeaseToken lease,
      StepTransition t,
      CompletionReason reason,
      JsonNode output,
      Instant notBefore,
      Instant now) {
    StepStatus to = Lifecycle.step(t, s.status());
    int rows =
        fence(h.createUpdate(Sql.text("step_end_fenced")), lease)
            .bind("from", s.status().wire())
            .bind("to", to.wire())
            .bind("reason", reason.wire())
            .bind("output", output == null ? null : EntryCodec.text(output))
            .bind("notBefore", notBefore == null ? null : notBefore.toString())
            .bind("now", now.toString())
            .execute();
    if (rows != 1) {
      throw lost(lease);
    }
  }

  // ---------------------------------------------------------------- cancel

  @Override
  public CancelOutcome cancelRun(RunId runId, String reason) {
    return signalled(
        runId,
        tx(
            h -> {
              Instant now = now(h);
              for (int pass = 0; ; pass++) {
                Optional<RunRow> found = lockRun(h, runId);
                if (found.isPresent()) {
                  return cancelExisting(h, found.get(), reason, now);
                }
                if (tombstone(h, runId, now)) {
                  append(h, now, new JournalEntry.RunCancelRequested(runId, reason));
                  notifyWork(h, runId);
                  return new CancelOutcome(runId, RunStatus.CANCELED, true, false);
                }
                if (pass > 0) {
                  throw new IllegalStateException("tombstone insert conflicted twice for " + runId);
                }
              }
            }));
  }

  private boolean tombstone(Handle h, RunId runId, Instant now) {
    RunStatus status = Lifecycle.run(RunTransition.TOMBSTONED, Optional.empty());
    return h.createUpdate(Sql.text("run_insert_tombstone"))
            .bind("runId", runId.value())
            .bind("status", status.wire())
            .bind("now", now.toString())
            .execute()
        == 1;
  }

  private CancelOutcome cancelExisting(Handle h, RunRow run, String reason, Instant now) {
    Optional<RunTransition> runCancel = Lifecycle.cancelFor(run.status());
    if (runCancel.isEmpty()) {
      return new CancelOutcome(run.runId(), run.status(), false, true);
    }
    append(h, now, new JournalEntry.RunCancelRequested(run.runId(), reason));
    // Its open children first (a suspended body is not there to cancel the call it waits on), and
    // before its own steps: a child's completion locks the child, then (V7's trigger) this run's
    // suspended steps, so taking the children first cannot deadlock with it.
    for (String childId :
        h.createQuery(Sql.text("runs_children"))
            .bind("parentRunId", run.runId().value())
            .mapTo(String.class)
            .list()) {
      lockRun(h, new RunId(childId))
          .ifPresent(
              child ->
                  cancelExisting(h, child, "its parent run " + run.runId() + " was canceled", now));
    }
    for (StepRow s : lockSteps(h, run.runId())) {
      Optional<StepTransition> t = Lifecycle.cancelFor(s.status());
      if (t.isEmpty()) {
        continue;
      }
      if (s.status() == StepStatus.RUNNING) {
        endAttempt(h, s, t.get(), CompletionReason.CANCELED, null, now);
        append(
            h,
            now,
            new JournalEntry.StepCompleted(
                s.runId(),
                s.stepId(),
                s.attempts(),
                CompletionReason.CANCELED,
                Disposition.STEP_DONE,
                Optional.empty(),
                List.of(),
                Optional.empty(),
                Optional.empty()));
      } else {
        setStatus(h, s, t.get(), Optional.empty(), now);
      }
    }
    RunStatus after = finishRun(h, run, runCancel.get(), RunCompletionReason.CANCELED, null, now);
    notifyWork(h, run.runId());
    return new CancelOutcome(run.runId(), after, false, false);
  }

  // ---------------------------------------------------------------- expiry

  @Override
  public List<ExpiredAttempt> expireLeases() {
    List<Candidate> candidates =
        tx(
            h ->
                query(
                    h,
                    "steps_expired",
                    q -> q.bind("limit", config.expiryBatchSize()),
                    (rs, ctx) ->
                        new Candidate(
                            new RunId(rs.getString("run_id")),
                            rs.getString("step_id"),
                            rs.getInt("attempts"))));
    List<ExpiredAttempt> expired = new ArrayList<>();
    // One transaction per attempt: a concurrent expirer or a late completion decides each attempt
    // under its own locks, so every expired attempt is journaled exactly once.
    for (Candidate c : candidates) {
      tx(h -> expireOne(h, c)).ifPresent(expired::add);
    }
    return expired;
  }

  private Optional<ExpiredAttempt> expireOne(Handle h, Candidate c) {
    Instant now = now(h);
    Optional<RunRow> run = lockRun(h, c.runId());
    Optional<StepRow> step = lockStep(h, c.runId(), c.stepId());
    if (run.isEmpty() || step.isEmpty()) {
      return Optional.empty();
    }
    StepRow s = step.get();
    if (run.get().status().terminal()
        || s.status() != StepStatus.RUNNING
        || s.attempts() != c.attempt()
        || Lifecycle.leaseLive(s.leaseDeadline(), now)) {
      return Optional.empty();
    }
    LeaseToken token = new LeaseToken(s.runId(), s.stepId(), s.attempts(), s.leaseId());
    StepSpec spec = s.spec();
    // As in the reference journal, an expiry names no effects: the dead attempt never reported.
    List<EffectRef> confirmed = List.of();
    if (s.attempts() - suspensions(h, s.runId(), s.stepId()) < spec.maxIterations()) {
      Instant next = now.plusMillis(backoffMs(spec, token));
      endAttempt(
          h, s, StepTransition.LEASE_EXPIRED_RETRY, CompletionReason.LEASE_EXPIRED, next, now);
      append(
          h,
          now,
          new JournalEntry.StepCompleted(
              s.runId(),
              s.stepId(),
              s.attempts(),
              CompletionReason.LEASE_EXPIRED,
              Disposition.RETRY,
              Optional.empty(),
              confirmed,
              Optional.empty(),
              Optional.of(next)));
      notifyWork(h, s.runId());
      return Optional.of(new ExpiredAttempt(token, Disposition.RETRY));
    }
    endAttempt(
        h,
        s,
        StepTransition.LEASE_EXPIRED_EXHAUSTED,
        CompletionReason.RETRIES_EXHAUSTED,
        null,
        now);
    append(
        h,
        now,
        new JournalEntry.StepCompleted(
            s.runId(),
            s.stepId(),
            s.attempts(),
            CompletionReason.RETRIES_EXHAUSTED,
            Disposition.STEP_DONE,
            Optional.empty(),
            confirmed,
            Optional.empty(),
            Optional.empty()));
    failRun(h, run.get(), s.stepId(), now);
    return Optional.of(new ExpiredAttempt(token, Disposition.STEP_DONE));
  }

  // ---------------------------------------------------------------- operator verbs

  @Override
  public RunSnapshot resumeRun(RunId runId, String by) {
    tx(
        h -> {
          Instant now = now(h);
          RunRow run = lockRun(h, runId).orElseThrow(() -> runNotFound(runId));
          RunTransition t =
              switch (run.status()) {
                case RUNNING -> null;
                case SUCCEEDED, CANCELED ->
                    throw new RunTerminalException(
                        "run " + runId + " is " + run.status().wire() + " and cannot resume",
                        runId.value());
                case FAILED -> RunTransition.RESUMED;
                case PARKED -> RunTransition.UNPARKED;
              };
          if (t == null) {
            return null;
          }
          RunStatus to = Lifecycle.run(t, Optional.of(run.status()));
          expectOne(
              h.createUpdate(Sql.text("run_resume"))
                  .bind("runId", runId.value())
                  .bind("from", run.status().wire())
                  .bind("to", to.wire())
                  .execute(),
              "resume run " + runId);
          for (StepRow s : lockSteps(h, runId)) {
            switch (s.status()) {
              case FAILED -> setStatus(h, s, StepTransition.RESUMED, Optional.of(now), now);
              case PARKED -> setStatus(h, s, StepTransition.RESOLVED, Optional.of(now), now);
              case WAITING, READY, RUNNING, SUCCEEDED, CANCELED -> {}
            }
          }
          append(h, now, new JournalEntry.RunResumed(runId, by));
          notifyWork(h, runId);
          return null;
        });
    return run(runId).orElseThrow(() -> runNotFound(runId));
  }

  @Override
  public RunSnapshot resolveStep(
      RunId runId, String stepId, Optional<JsonNode> performed, String by) {
    tx(
        h -> {
          Instant now = now(h);
          RunRow run = lockRun(h, runId).orElseThrow(() -> runNotFound(runId));
          StepRow s =
              lockStep(h, runId, stepId)
                  .orElseThrow(
                      () ->
                          new NotFoundException(
                              ErrorCode.STEP_NOT_FOUND,
                              "run " + runId + " has no step " + stepId,
                              stepId));
          if (s.status() != StepStatus.PARKED) {
            throw new FlowsException(
                ErrorCode.INVALID_INPUT,
                "step " + stepId + " is " + s.status().wire() + ", not parked",
                s.place(),
                "only a parked step can be resolved");
          }
          append(
              h,
              now,
              new JournalEntry.StepResolved(runId, stepId, performed.isPresent(), performed, by));
          if (performed.isPresent()) {
            String output = EntryCodec.text(performed.get());
            bindStep(h.createUpdate(Sql.text("elections_confirm_open")), s)
                .bind("output", output)
                .bind("now", now.toString())
                .execute();
            StepStatus to = Lifecycle.step(StepTransition.RESOLVED_PERFORMED, s.status());
            expectOne(
                bindStep(h.createUpdate(Sql.text("step_resolve_performed")), s)
                    .bind("from", s.status().wire())
                    .bind("to", to.wire())
                    .bind("output", output)
                    .bind("now", now.toString())
                    .execute(),
                "resolve " + s.place());
          } else {
            bindStep(h.createUpdate(Sql.text("elections_drop_open")), s).execute();
            setStatus(h, s, StepTransition.RESOLVED, Optional.of(now), now);
          }
          RunRow current = run;
          boolean stillParked =
              query(h, "steps_of_run", q -> q.bind("runId", runId.value()), STEP).stream()
                  .anyMatch(x -> x.status() == StepStatus.PARKED);
          if (run.status() == RunStatus.PARKED && !stillParked) {
            RunStatus to = Lifecycle.run(RunTransition.UNPARKED, Optional.of(run.status()));
            expectOne(
                h.createUpdate(Sql.text("run_set_status"))
                    .bind("runId", runId.value())
                    .bind("from", run.status().wire())
                    .bind("to", to.wire())
                    .execute(),
                "unpark run " + runId);
            current = run.withStatus(to);
          }
          if (current.status() == RunStatus.RUNNING) {
            afterSuccess(h, current, now);
          }
          notifyWork(h, runId);
          return null;
        });
    return run(runId).orElseThrow(() -> runNotFound(runId));
  }

  private static <S extends org.jdbi.v3.core.statement.SqlStatement<S>> S bindStep(
      S statement, StepRow s) {
    return statement.bind("runId", s.runId().value()).bind("stepId", s.stepId());
  }

  // ---------------------------------------------------------------- reads

  /** A run row with what only {@link #run} reads: its queue and why it waits. */
  private record RunRead(RunRow row, String queue, Optional<String> waitingReason) {}

  private static final org.jdbi.v3.core.mapper.RowMapper<RunRead> RUN_READ =
      (rs, ctx) ->
          new RunRead(
              PostgresJournal.RUN.map(rs, ctx),
              rs.getString("queue"),
              Optional.ofNullable(rs.getString("waiting_reason")));

  @Override
  public Optional<RunSnapshot> run(RunId runId) {
    return tx(
        h ->
            query(h, "run_columns", q -> q.bind("runId", runId.value()), RUN_READ).stream()
                .findFirst()
                .map(
                    read -> {
                      RunRow r = read.row();
                      return new RunSnapshot(
                          r.runId(),
                          r.name(),
                          r.status(),
                          r.parentRunId(),
                          r.admissionKey(),
                          EntryCodec.canonicalSpec(r.spec()),
                          r.specHash(),
                          r.createdAt(),
                          r.completedAt(),
                          r.completionReason(),
                          query(h, "steps_of_run", q -> q.bind("runId", runId.value()), STEP)
                              .stream()
                              .map(
                                  s ->
                                      new StepSnapshot(
                                          s.stepId(),
                                          s.kind(),
                                          s.status(),
                                          s.attempts(),
                                          s.notBefore(),
                                          s.lastReason(),
                                          s.output()))
                              .toList(),
                          read.queue(),
                          read.waitingReason());
                    }));
  }

  @Override
  public List<JournalRecord> entries(RunId runId) {
    return tx(
        h ->
            query(
                h,
                "entries_of_run",
                q -> q.bind("runId", runId.value()),
                (rs, ctx) ->
                    new JournalRecord(
                        rs.getLong("seq"),
                        instant(rs, "at"),
                        EntryCodec.decode(
                            runId,
                            rs.getString("entry_type"),
                            EntryCodec.parse(rs.getString("payload"))))));
  }

  @Override
  public List<RunId> children(RunId parent) {
    return tx(
        h ->
            query(
                h,
                "runs_children",
                q -> q.bind("parentRunId", parent.value()),
                (rs, ctx) -> new RunId(rs.getString("run_id"))));
  }

  @Override
  public boolean awaitWork(Duration timeout) throws InterruptedException {
    return listener.await(timeout);
  }

  // ---------------------------------------------------------------- batched lease renewal and
  // the reconciler's and claimer's timing (perf-lease)

  /**
   * One statement, one commit, however many leases: the fence of {@link #heartbeat} per lease,
   * "now" read once. Leases are sent in (run, step) order so two batches lock shared rows in one
   * order.
   */
  @Override
  public LeaseRenewals renewLeases(Collection<LeaseToken> leases) {
    if (leases.isEmpty()) {
      return LeaseRenewals.none();
    }
    List<LeaseToken> asked =
        leases.stream()
            .distinct()
            .sorted(
                Comparator.comparing((LeaseToken t) -> t.runId().value())
                    .thenComparing(LeaseToken::stepId))
            .toList();
    Map<String, LeaseToken> byKey = new HashMap<>();
    asked.forEach(
        t -> byKey.put(leaseKey(t.runId().value(), t.stepId(), t.attempt(), t.leaseId()), t));
    // One statement, so autocommit: atomic on its own, and no COMMIT round trip after it (an
    // attempt's first renewal is on the path from its claim to its work); plain JDBC with Java
    // arrays, as the memo statement, without Jdbi's per-call binding and mapping work.
    Map<LeaseToken, Instant> renewed = new HashMap<>();
    Map<LeaseToken, String> runStatus = new HashMap<>();
    autocommitRows(
        LEASES_RENEW,
        (sql, ps) -> {
          sql.bind(ps, "runIds", asked.stream().map(t -> t.runId().value()).toArray(String[]::new));
          sql.bind(ps, "stepIds", asked.stream().map(LeaseToken::stepId).toArray(String[]::new));
          sql.bind(ps, "attempts", asked.stream().mapToInt(LeaseToken::attempt).toArray());
          sql.bind(ps, "leaseIds", asked.stream().map(LeaseToken::leaseId).toArray(String[]::new));
        },
        rs -> {
          // Looked up on the whole token: a forged token for a renewed step must not read as
          // renewed.
          LeaseToken t =
              byKey.get(
                  leaseKey(
                      rs.getString("run_id"),
                      rs.getString("step_id"),
                      rs.getInt("attempt"),
                      rs.getString("lease_id")));
          if (t != null) {
            if (rs.getString("kind").equals("renewed")) {
              renewed.put(t, instant(rs, "lease_deadline"));
            } else {
              runStatus.put(t, rs.getString("run_status"));
            }
          }
        });
    Map<LeaseToken, ErrorCode> refused = new HashMap<>();
    for (LeaseToken t : asked) {
      if (!renewed.containsKey(t)) {
        String status = runStatus.get(t);
        refused.put(
            t,
            status == null
                ? ErrorCode.RUN_NOT_FOUND
                : RunStatus.fromWire(status).terminal()
                    ? ErrorCode.RUN_TERMINAL
                    : ErrorCode.LEASE_CONFLICT);
      }
    }
    return new LeaseRenewals(renewed, refused);
  }

  private static String leaseKey(String runId, String stepId, int attempt, String leaseId) {
    return runId + '\u0000' + stepId + '\u0000' + attempt + '\u0000' + leaseId;
  }

  @Override
  public Optional<Duration> untilNextLeaseDeadline() {
    return tx(
        h ->
            h.createQuery(Sql.text("leases_next_deadline"))
                .map((rs, ctx) -> untilMs(rs.getDouble("until_ms")))
                .findFirst());
  }

  @Override
  public Optional<Duration> untilNextClaimable(ClaimRequest request) {
    if (request.kinds().isEmpty()) {
      return Optional.empty();
    }
    List<String> kinds = request.kinds().stream().map(StepKind::wire).sorted().toList();
    return tx(
        h ->
            h.createQuery(Sql.text("steps_next_claimable"))
                .bindArray("kinds", String.class, kinds)
                .bind("anyRoute", request.routes().isEmpty())
                .bindArray(
                    "routes", String.class, request.routes().map(List::copyOf).orElse(List.of()))
                .bindArray("routePrefixes", String.class, List.copyOf(request.routePrefixes()))
                .bind("anyQueue", request.queues().isEmpty())
                .bindArray(
                    "queues", String.class, request.queues().map(List::copyOf).orElse(List.of()))
                .map((rs, ctx) -> untilMs(rs.getDouble("until_ms")))
                .findFirst());
  }

  @Override
  public int noteUnaccepted(ClaimRequest request, String routePrefix, String reason) {
    if (request.kinds().isEmpty() || request.capacity() == 0 || request.routes().isEmpty()) {
      return 0;
    }
    List<String> kinds = request.kinds().stream().map(StepKind::wire).sorted().toList();
    return tx(
        h ->
            h.createUpdate(Sql.text("steps_note_unaccepted"))
                .bindArray("kinds", String.class, kinds)
                .bind("routePrefix", routePrefix)
                .bind("anyRoute", false)
                .bindArray("routes", String.class, List.copyOf(request.routes().get()))
                .bindArray("routePrefixes", String.class, List.copyOf(request.routePrefixes()))
                .bind("anyQueue", request.queues().isEmpty())
                .bindArray(
                    "queues", String.class, request.queues().map(List::copyOf).orElse(List.of()))
                .bind("limit", request.capacity())
                .bind("reason", reason)
                .bind("workerId", request.workerId().value())
                .execute());
  }

  /** A span in milliseconds from the database, never negative (past is "now"). */
  private static Duration untilMs(double ms) {
    return ms <= 0 ? Duration.ZERO : Duration.ofNanos((long) Math.ceil(ms * 1_000_000));
  }

  // ---------------------------------------------------------------- group commit (f.step memos)

  /** One recordConfirmedEffect call as the fast path writes it, its entries already encoded. */
  private record MemoCall(
      LeaseToken lease,
      String surfacePath,
      String idempotencyKey,
      Optional<String> output,
      String recordedPayload,
      String confirmedPayload) {
    /**
     * Encodes the call's entries as {@link EntryCodec#encode} would, the output serialized once (it
     * is both the election's output and part of the confirmed entry's payload).
     */
    static MemoCall of(
        LeaseToken lease, String surfacePath, String idempotencyKey, Optional<JsonNode> output) {
      Optional<String> outputJson = output.map(EntryCodec::text);
      return new MemoCall(
          lease,
          surfacePath,
          idempotencyKey,
          outputJson,
          EntryCodec.effectRecordedPayload(
              surfacePath, idempotencyKey, false, lease.stepId(), lease.attempt()),
          EntryCodec.effectConfirmedPayload(
              surfacePath, idempotencyKey, outputJson, lease.stepId(), lease.attempt()));
    }
  }

  /**
   * Writes a batch of memo effects with one statement in autocommit (one round trip, one
   * transaction) and answers, per call, whether it took the fast path; see {@code
   * memo_fast_path.sql}. Of two calls for one election (run, step, surface) only the first is sent:
   * the statement could not tell them apart (both would match the one election it inserts, and both
   * would be journaled); the others go down the one-call path, which answers them exactly. Plain
   * JDBC rather than Jdbi: this runs once per {@code f.step}, and Jdbi's per-statement set-up
   * (config, argument and array type lookups) cost more CPU than the statement's own work.
   */
  private List<Boolean> writeMemosFast(List<MemoCall> calls) {
    int[] sentAt = firstPerElection(calls);
    int n = sentAt.length;
    List<MemoCall> sent = new ArrayList<>(n);
    for (int i : sentAt) {
      sent.add(calls.get(i));
    }
    Boolean[] fast = new Boolean[calls.size()];
    Arrays.fill(fast, Boolean.FALSE);
    try (Connection c = dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement ps = c.prepareStatement(MEMO_FAST_PATH.sql())) {
        MEMO_FAST_PATH.bind(ps, "runIds", textArray(sent, m -> m.lease().runId().value()));
        MEMO_FAST_PATH.bind(ps, "stepIds", textArray(sent, m -> m.lease().stepId()));
        int[] attempts = new int[n];
        for (int i = 0; i < n; i++) {
          attempts[i] = sent.get(i).lease().attempt();
        }
        MEMO_FAST_PATH.bind(ps, "attempts", attempts);
        MEMO_FAST_PATH.bind(ps, "leaseIds", textArray(sent, m -> m.lease().leaseId()));
        MEMO_FAST_PATH.bind(ps, "surfacePaths", textArray(sent, MemoCall::surfacePath));
        MEMO_FAST_PATH.bind(ps, "idempotencyKeys", textArray(sent, MemoCall::idempotencyKey));
        MEMO_FAST_PATH.bind(ps, "outputs", textArray(sent, m -> m.output().orElse(null)));
        MEMO_FAST_PATH.bind(ps, "recordedPayloads", textArray(sent, MemoCall::recordedPayload));
        MEMO_FAST_PATH.bind(ps, "confirmedPayloads", textArray(sent, MemoCall::confirmedPayload));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            fast[sentAt[rs.getInt(1) - 1]] = Boolean.TRUE;
          }
        }
        return Arrays.asList(fast);
      }
    } catch (SQLException e) {
      throw SqlErrors.translate(e);
    }
  }

  /**
   * The indexes of {@code calls} to send: every call but those for an election an earlier call of
   * the batch names (a body's memo positions are distinct, so almost always all of them).
   */
  private static int[] firstPerElection(List<MemoCall> calls) {
    record Election(RunId runId, String stepId, String surfacePath) {}
    java.util.Set<Election> seen = new java.util.HashSet<>();
    int[] first = new int[calls.size()];
    int n = 0;
    for (int i = 0; i < calls.size(); i++) {
      MemoCall m = calls.get(i);
      if (calls.size() == 1
          || seen.add(new Election(m.lease().runId(), m.lease().stepId(), m.surfacePath()))) {
        first[n++] = i;
      }
    }
    return Arrays.copyOf(first, n);
  }

  private static final PositionalSql MEMO_FAST_PATH = PositionalSql.of(Sql.text("memo_fast_path"));

  /**
   * A Java array, bound as is: the driver sends {@code String[]} and {@code int[]} as binary arrays
   * without {@code createArrayOf}'s type-catalog lookups and array object (a visible share of the
   * per-step CPU).
   */
  private static String[] textArray(
      List<MemoCall> calls, java.util.function.Function<MemoCall, String> value) {
    String[] values = new String[calls.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = value.apply(calls.get(i));
    }
    return values;
  }

  // ---------------------------------------------------------------- inline effects (perf-mcp)

  /** One round trip: {@code flows.start_claimed} (V4) does the admission, claim and election. */
  @Override
  public ClaimedEffect startClaimed(
      StartRun r, WorkerId worker, Duration lease, String surfacePath) {
    StepSpec step = ClaimedEffect.inlineStep(r, surfacePath);
    RunId runId = r.runId().orElseGet(RunId::random);
    JsonNode specJson = RunSpecJson.write(r.spec());
    // RunSpecJson.hash(spec) of the tree already written, instead of writing the spec twice.
    String hash = Keys.sha256Hex(RunSpecJson.canonicalText(specJson));
    String leaseId = Keys.leaseId(runId, step.id(), 1);
    long leaseMs = step.leaseMs().orElse(lease.toMillis());
    String key = Keys.idempotencyKey(runId, step.id());
    RunStatus spawned = Lifecycle.run(RunTransition.SPAWNED, Optional.empty());
    StepStatus ready = StepStatus.READY;
    StepStatus running = Lifecycle.step(StepTransition.CLAIMED, ready);
    // The function sets the real deadline (from the database clock) over this placeholder.
    JournalEntry started =
        new JournalEntry.StepAttemptStarted(
            runId, step.id(), 1, step.kind(), key, leaseId, Instant.EPOCH, worker);
    InlineStart row =
        autocommitRow(
            START_CLAIMED,
            (sql, ps) -> {
              sql.bind(ps, "runId", runId.value());
              sql.bind(ps, "name", r.spec().name());
              sql.bind(ps, "runStatus", spawned.wire());
              sql.bind(ps, "parentRunId", r.parentRunId().map(RunId::value).orElse(null));
              sql.bind(ps, "admissionKey", r.admissionKey());
              sql.bind(ps, "spec", EntryCodec.text(specJson));
              sql.bind(ps, "specHash", hash);
              sql.bind(ps, "createdBy", r.createdBy());
              sql.bind(ps, "stepId", step.id());
              sql.bind(ps, "kind", step.kind().wire());
              sql.bind(ps, "route", dev.flows.kernel.spec.Routes.of(step));
              sql.bind(ps, "readyStatus", ready.wire());
              sql.bind(ps, "runningStatus", running.wire());
              sql.bind(ps, "maxIterations", step.maxIterations());
              sql.bind(ps, "stepSpec", EntryCodec.text(RunSpecJson.writeStep(step)));
              sql.bind(ps, "leaseId", leaseId);
              sql.bind(ps, "leaseMs", leaseMs);
              sql.bind(ps, "workerId", worker.value());
              sql.bind(ps, "surfacePath", surfacePath);
              sql.bind(ps, "idempotencyKey", key);
              sql.bind(
                  ps,
                  "spawned",
                  EntryCodec.encode(
                          new JournalEntry.RunSpawned(
                              runId,
                              specJson,
                              hash,
                              r.parentRunId(),
                              r.admissionKey(),
                              r.createdBy()))
                      .payload());
              sql.bind(ps, "started", EntryCodec.encode(started).payload());
              sql.bind(
                  ps,
                  "recorded",
                  EntryCodec.encode(
                          recorded(
                              new LeaseToken(runId, step.id(), 1, leaseId),
                              surfacePath,
                              key,
                              false))
                      .payload());
            },
            rs ->
                new InlineStart(
                    rs.getString("outcome"),
                    rs.getString("existing_run_id"),
                    instant(rs, "lease_deadline")));
    return switch (row.outcome()) {
      case "claimed" -> {
        LeaseToken token = new LeaseToken(runId, step.id(), 1, leaseId);
        yield new ClaimedEffect(
            new ClaimedAttempt(token, row.leaseDeadline(), leaseMs, step, key, r.parentRunId()),
            new EffectElection(key, false, false, Optional.empty()));
      }
      case "terminal" ->
          throw new RunTerminalException(
              "run " + row.existingRunId() + " was canceled or ended and cannot be started",
              row.existingRunId());
      case "exists" ->
          throw new RunAdmissionConflictException(
              r.admissionKey(),
              row.existingRunId(),
              "the run id or admission key was already admitted");
      default -> throw new IllegalStateException("flows.start_claimed answered " + row.outcome());
    };
  }

  /**
   * A success is one round trip ({@code flows.confirm_and_succeed}, V4); other outcomes are rarer
   * and take the verbs' own statements, still in one transaction.
   */
  @Override
  public CompletionAck confirmAndComplete(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, StepOutcome outcome) {
    if (!(outcome instanceof StepOutcome.Succeeded ok)) {
      return signalled(
          lease.runId(),
          tx(
              h -> {
                Instant now = now(h);
                // The run's lock first, as every verb takes it, before confirm locks the step.
                lockRun(h, lease.runId()).orElseThrow(() -> runNotFound(lease.runId()));
                confirmIn(h, lease, surfacePath, output, now);
                return completeIn(h, lease, outcome, now);
              }));
    }
    JsonNode stepOutput = ok.output() == null ? NullNode.getInstance() : ok.output();
    String key = Keys.idempotencyKey(lease.runId(), lease.stepId());
    StepStatus succeeded = Lifecycle.step(StepTransition.COMPLETED_SUCCESS, StepStatus.RUNNING);
    InlineEnd row =
        autocommitRow(
            CONFIRM_AND_SUCCEED,
            (sql, ps) -> {
              sql.bind(ps, "runId", lease.runId().value());
              sql.bind(ps, "stepId", lease.stepId());
              sql.bind(ps, "attempt", lease.attempt());
              sql.bind(ps, "leaseId", lease.leaseId());
              sql.bind(ps, "surfacePath", surfacePath);
              sql.bind(ps, "confirmOutput", output.map(EntryCodec::text).orElse(null));
              sql.bind(ps, "stepOutput", EntryCodec.text(stepOutput));
              sql.bind(ps, "succeededStatus", succeeded.wire());
              sql.bind(
                  ps,
                  "confirmed",
                  EntryCodec.encode(
                          new JournalEntry.EffectConfirmed(
                              lease.runId(),
                              lease.stepId(),
                              lease.attempt(),
                              surfacePath,
                              key,
                              output))
                      .payload());
              bindSuccessEntries(sql, ps, lease, stepOutput);
            },
            rs ->
                new InlineEnd(
                    rs.getString("outcome"),
                    Optional.ofNullable(rs.getString("run_status")).map(RunStatus::fromWire)));
    return switch (row.outcome()) {
      case "ok" -> succeeded(lease, row.runStatus().orElseThrow());
      case "run_not_found" -> throw runNotFound(lease.runId());
      case "run_terminal" -> throw terminal(lease.runId(), row.runStatus().orElseThrow());
      case "lease_conflict" -> throw lost(lease);
      case "effect_not_recorded" ->
          throw new FlowsException(
              ErrorCode.EFFECT_NOT_RECORDED,
              "attempt " + lease.attempt() + " holds no election for " + surfacePath,
              lease.place(),
              "record the effect before performing it, then confirm it");
      case "effect_unconfirmed" ->
          throw new FlowsException(
              ErrorCode.EFFECT_UNCONFIRMED,
              "attempt " + lease.attempt() + " holds another unconfirmed election",
              lease.place(),
              "confirm the effect before completing with success, or complete as failed");
      default ->
          throw new IllegalStateException("flows.confirm_and_succeed answered " + row.outcome());
    };
  }

  private static final PositionalSql SUCCEED_ATTEMPT =
      PositionalSql.of(Sql.text("succeed_attempt"));

  /**
   * The success path of {@link #complete}: {@code flows.succeed_attempt} (V10) makes the checks,
   * writes and NOTIFY of {@link #succeed} in one round trip instead of a dozen.
   */
  private CompletionAck succeedInOneTrip(LeaseToken lease, StepOutcome.Succeeded ok) {
    JsonNode output = ok.output() == null ? NullNode.getInstance() : ok.output();
    StepStatus succeeded = Lifecycle.step(StepTransition.COMPLETED_SUCCESS, StepStatus.RUNNING);
    SuccessEnd row =
        autocommitRow(
            SUCCEED_ATTEMPT,
            (sql, ps) -> {
              sql.bind(ps, "runId", lease.runId().value());
              sql.bind(ps, "stepId", lease.stepId());
              sql.bind(ps, "attempt", lease.attempt());
              sql.bind(ps, "leaseId", lease.leaseId());
              sql.bind(ps, "stepOutput", EntryCodec.text(output));
              sql.bind(ps, "succeededStatus", succeeded.wire());
              bindSuccessEntries(sql, ps, lease, output);
            },
            rs ->
                new SuccessEnd(
                    rs.getString("outcome"),
                    Optional.ofNullable(rs.getString("run_status")).map(RunStatus::fromWire),
                    Optional.ofNullable(rs.getString("unconfirmed")),
                    rs.getInt("unblocked")));
    return switch (row.outcome()) {
      case "ok" -> {
        // The transitions the function took, checked against the kernel's table and recorded as
        // the Java path's calls did (the database's triggers enforce the same table).
        if (row.unblocked() > 0) {
          Lifecycle.step(StepTransition.DEPENDENCIES_MET, StepStatus.WAITING);
        }
        if (row.runStatus().orElseThrow() == RunStatus.SUCCEEDED) {
          Lifecycle.run(RunTransition.ALL_STEPS_SUCCEEDED, Optional.of(RunStatus.RUNNING));
        }
        yield succeeded(lease, row.runStatus().orElseThrow());
      }
      case "run_not_found" -> throw runNotFound(lease.runId());
      case "run_terminal" -> throw terminal(lease.runId(), row.runStatus().orElseThrow());
      case "lease_conflict" -> throw lost(lease);
      case "effect_unconfirmed" -> throw unconfirmed(lease, row.unconfirmed().orElseThrow());
      default -> throw new IllegalStateException("flows.succeed_attempt answered " + row.outcome());
    };
  }

  /**
   * The payloads of a success's {@code step.completed} (its {@code effects} are filled in by the
   * database) and of {@code run.completed}, for the one-trip success functions.
   */
  private static void bindSuccessEntries(
      PositionalSql sql, PreparedStatement ps, LeaseToken lease, JsonNode stepOutput)
      throws SQLException {
    sql.bind(
        ps,
        "completed",
        EntryCodec.encode(
                new JournalEntry.StepCompleted(
                    lease.runId(),
                    lease.stepId(),
                    lease.attempt(),
                    CompletionReason.SUCCESS,
                    Disposition.STEP_DONE,
                    Optional.of(stepOutput),
                    List.of(),
                    Optional.empty(),
                    Optional.empty()))
            .payload());
    sql.bind(
        ps,
        "runCompleted",
        EntryCodec.encode(
                new JournalEntry.RunCompleted(
                    lease.runId(), RunCompletionReason.SUCCESS, Optional.empty()))
            .payload());
  }

  /** A success written: this process's watchers told, the acknowledgement answered. */
  private CompletionAck succeeded(LeaseToken lease, RunStatus runStatus) {
    return signalled(
        lease.runId(),
        new CompletionAck(
            CompletionReason.SUCCESS, Disposition.STEP_DONE, Optional.empty(), runStatus));
  }

  /** What {@code flows.succeed_attempt} answered: an outcome, and the surface an open one names. */
  private record SuccessEnd(
      String outcome, Optional<RunStatus> runStatus, Optional<String> unconfirmed, int unblocked) {}

  /** Watches wake on NOTIFY for the run, and at once for changes made through this journal. */
  @Override
  public RunWatch watchRun(RunId runId) {
    return listener.watch(runId.value());
  }

  /** Tells this process's watchers of {@code runId} that it changed (after the commit). */
  private <T> T signalled(RunId runId, T committed) {
    listener.changed(runId.value());
    return committed;
  }

  private static final PositionalSql START_CLAIMED = PositionalSql.of(Sql.text("start_claimed"));
  private static final PositionalSql CONFIRM_AND_SUCCEED =
      PositionalSql.of(Sql.text("confirm_and_succeed"));

  /** Sets a statement's parameters. */
  @FunctionalInterface
  private interface Binder {
    void bind(PositionalSql sql, PreparedStatement ps) throws SQLException;
  }

  /** Reads the current row. */
  @FunctionalInterface
  private interface RowReader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /**
   * A verb that is one statement: sent in autocommit, so it costs one round trip (no BEGIN, no
   * separate COMMIT), and answers exactly one row. Plain JDBC rather than Jdbi, as for the memo
   * fast path: the inline verbs run twice per durable {@code f.mcp} call, and Jdbi's per-statement
   * set-up (handle, config, argument lookups, its JFR event formatting every parameter) costs more
   * client CPU than these statements' binding and reading.
   */
  private static final PositionalSql LEASES_RENEW = PositionalSql.of(Sql.text("leases_renew"));

  /** Handles one row of a result. */
  @FunctionalInterface
  private interface RowConsumer {
    void accept(ResultSet rs) throws SQLException;
  }

  /** One statement in autocommit on a pooled connection, every row of its result handled. */
  private void autocommitRows(PositionalSql sql, Binder binder, RowConsumer each) {
    try (Connection c = dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement ps = c.prepareStatement(sql.sql())) {
        binder.bind(sql, ps);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            each.accept(rs);
          }
        }
      }
    } catch (SQLException e) {
      throw SqlErrors.translate(e);
    }
  }

  private <T> T autocommitRow(PositionalSql sql, Binder binder, RowReader<T> reader) {
    List<T> rows = new ArrayList<>(1);
    autocommitRows(sql, binder, rs -> rows.add(reader.read(rs)));
    if (rows.isEmpty()) {
      throw new IllegalStateException("no row from " + sql.sql());
    }
    return rows.getFirst();
  }

  private record InlineStart(String outcome, String existingRunId, Instant leaseDeadline) {}

  private record InlineEnd(String outcome, Optional<RunStatus> runStatus) {}

  // ---------------------------------------------------------------- helpers

  /** Every verb runs here: one transaction, and the one place SQL failures are translated. */
  private <T> T tx(HandleCallback<T, RuntimeException> body) {
    try {
      return jdbi.inTransaction(body);
    } catch (FlowsException e) {
      throw e;
    } catch (JdbiException e) {
      throw SqlErrors.translate(e);
    }
  }

  private static Instant now(Handle h) {
    return h.createQuery(Sql.text("now")).map((rs, ctx) -> instant(rs, "clock_timestamp")).one();
  }

  /** Checks that {@code lease} names the live attempt, holding the step's row lock until commit. */
  private StepRow live(Handle h, LeaseToken lease, Instant now) {
    Optional<LiveRow> row =
        query(
                h,
                "step_lock_live",
                q -> q.bind("runId", lease.runId().value()).bind("stepId", lease.stepId()),
                (rs, ctx) ->
                    new LiveRow(STEP.map(rs, ctx), RunStatus.fromWire(rs.getString("run_status"))))
            .stream()
            .findFirst();
    if (row.isEmpty()) {
      // No such step: find out whether the run exists and how it stands.
      RunRow run =
          query(h, "run_columns", q -> q.bind("runId", lease.runId().value()), RUN).stream()
              .findFirst()
              .orElseThrow(() -> runNotFound(lease.runId()));
      throw run.status().terminal() ? terminal(run.runId(), run.status()) : lost(lease);
    }
    if (row.get().runStatus().terminal()) {
      throw terminal(lease.runId(), row.get().runStatus());
    }
    StepRow s = row.get().step();
    boolean live =
        s.status() == StepStatus.RUNNING
            && s.attempts() == lease.attempt()
            && lease.leaseId().equals(s.leaseId())
            && Lifecycle.leaseLive(s.leaseDeadline(), now);
    if (!live) {
      throw lost(lease);
    }
    stepSpecs.put(s.runId(), s.stepId(), s.spec());
    return s;
  }

  private static RunTerminalException terminal(RunId runId, RunStatus status) {
    return new RunTerminalException("run " + runId + " is already " + status.wire(), runId.value());
  }

  private static FlowsException unconfirmed(LeaseToken lease, String surfacePath) {
    return new FlowsException(
        ErrorCode.EFFECT_UNCONFIRMED,
        "attempt " + lease.attempt() + " holds an unconfirmed election for " + surfacePath,
        lease.place(),
        "confirm the effect before completing with success, or complete as failed");
  }

  private static LeaseConflictException lost(LeaseToken lease) {
    return new LeaseConflictException(
        "attempt " + lease.attempt() + " does not hold a live lease " + lease.leaseId(),
        lease.place());
  }

  private static NotFoundException runNotFound(RunId runId) {
    return new NotFoundException(ErrorCode.RUN_NOT_FOUND, "no run " + runId, runId.value());
  }

  private static <S extends org.jdbi.v3.core.statement.SqlStatement<S>> S fence(
      S statement, LeaseToken lease) {
    return statement
        .bind("runId", lease.runId().value())
        .bind("stepId", lease.stepId())
        .bind("attempt", lease.attempt())
        .bind("leaseId", lease.leaseId());
  }

  private static long backoffMs(StepSpec spec, LeaseToken lease) {
    return Backoff.delayMs(
        spec.retry(), lease.attempt(), Keys.idempotencyKey(lease.runId(), lease.stepId()));
  }

  private void endAttempt(
      Handle h,
      StepRow s,
      StepTransition t,
      CompletionReason reason,
      Instant notBefore,
      Instant now) {
    StepStatus to = Lifecycle.step(t, s.status());
    expectOne(
        h.createUpdate(Sql.text("step_end_unfenced"))
            .bind("runId", s.runId().value())
            .bind("stepId", s.stepId())
            .bind("from", s.status().wire())
            .bind("to", to.wire())
            .bind("attempt", s.attempts())
            .bind("reason", reason.wire())
            .bind("notBefore", notBefore == null ? null : notBefore.toString())
            .bind("now", now.toString())
            .execute(),
        "end attempt " + s.attempts() + " of " + s.place());
  }

  private void setStatus(
      Handle h, StepRow s, StepTransition t, Optional<Instant> notBefore, Instant now) {
    StepStatus to = Lifecycle.step(t, s.status());
    expectOne(
        h.createUpdate(Sql.text("step_set_status"))
            .bind("runId", s.runId().value())
            .bind("stepId", s.stepId())
            .bind("from", s.status().wire())
            .bind("to", to.wire())
            .bind("notBefore", notBefore.map(Instant::toString).orElse(null))
            .bind("now", now.toString())
            .execute(),
        t + " on " + s.place());
  }

  private static void expectOne(int rows, String what) {
    if (rows != 1) {
      // Every caller holds the row lock and has just read the row: this is a journal bug.
      throw new IllegalStateException(what + " changed " + rows + " rows, expected 1");
    }
  }

  private static void append(Handle h, Instant now, JournalEntry entry) {
    EntryCodec.Row row = EntryCodec.encode(entry);
    h.createUpdate(Sql.text("entry_insert"))
        .bind("at", now.toString())
        .bind("runId", entry.runId().value())
        .bind("type", row.type())
        .bind("stepId", row.stepId().orElse(null))
        .bind("attempt", row.attempt().orElse(null))
        .bind("payload", row.payload())
        .execute();
  }

  private static void notifyWork(Handle h, RunId runId) {
    h.createQuery(Sql.text("notify_work")).bind("runId", runId.value()).mapTo(String.class).one();
  }

  private static Optional<RunRow> lockRun(Handle h, RunId runId) {
    return query(h, "run_lock", q -> q.bind("runId", runId.value()), RUN).stream().findFirst();
  }

  private static Optional<StepRow> lockStep(Handle h, RunId runId, String stepId) {
    return query(h, "step_lock", q -> q.bind("runId", runId.value()).bind("stepId", stepId), STEP)
        .stream()
        .findFirst();
  }

  private static List<StepRow> lockSteps(Handle h, RunId runId) {
    return query(h, "steps_of_run_lock", q -> q.bind("runId", runId.value()), STEP);
  }

  private static Optional<ElectionRow> election(Handle h, LeaseToken lease, String surfacePath) {
    return query(
            h,
            "election_lock",
            q ->
                q.bind("runId", lease.runId().value())
                    .bind("stepId", lease.stepId())
                    .bind("surfacePath", surfacePath),
            (rs, ctx) ->
                new ElectionRow(
                    surfacePath,
                    rs.getInt("attempt"),
                    rs.getString("idempotency_key"),
                    rs.getBoolean("confirmed"),
                    json(rs, "output")))
        .stream()
        .findFirst();
  }

  private static List<ElectionRow> electionsOf(Handle h, LeaseToken lease) {
    return electionsOf(h, lease.runId(), lease.stepId(), lease.attempt());
  }

  private static List<ElectionRow> electionsOf(Handle h, RunId runId, String stepId, int attempt) {
    return query(
        h,
        "elections_of_attempt",
        q -> q.bind("runId", runId.value()).bind("stepId", stepId).bind("attempt", attempt),
        (rs, ctx) ->
            new ElectionRow(
                rs.getString("surface_path"),
                attempt,
                rs.getString("idempotency_key"),
                rs.getBoolean("confirmed"),
                Optional.empty()));
  }

  private static <T> List<T> query(
      Handle h,
      String sql,
      java.util.function.UnaryOperator<org.jdbi.v3.core.statement.Query> binder,
      org.jdbi.v3.core.mapper.RowMapper<T> mapper) {
    return binder.apply(h.createQuery(Sql.text(sql))).map(mapper).list();
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  private static Optional<Instant> optionalInstant(ResultSet rs, String column)
      throws SQLException {
    return Optional.ofNullable(instant(rs, column));
  }

  private static Optional<JsonNode> json(ResultSet rs, String column) throws SQLException {
    String text = rs.getString(column);
    return text == null ? Optional.empty() : Optional.of(EntryCodec.parse(text));
  }

  private static List<String> strings(ResultSet rs, String column) throws SQLException {
    Array a = rs.getArray(column);
    return a == null ? List.of() : Arrays.asList((String[]) a.getArray());
  }

  private static final org.jdbi.v3.core.mapper.RowMapper<RunRow> RUN =
      (rs, ctx) ->
          new RunRow(
              new RunId(rs.getString("run_id")),
              rs.getString("name"),
              RunStatus.fromWire(rs.getString("status")),
              Optional.ofNullable(rs.getString("parent_run_id")).map(RunId::new),
              rs.getString("admission_key"),
              EntryCodec.parse(rs.getString("spec")),
              rs.getString("spec_hash"),
              rs.getBoolean("tombstone"),
              instant(rs, "created_at"),
              optionalInstant(rs, "completed_at"),
              Optional.ofNullable(rs.getString("completion_reason"))
                  .map(RunCompletionReason::fromWire));

  private static final org.jdbi.v3.core.mapper.RowMapper<StepRow> STEP =
      (rs, ctx) ->
          new StepRow(
              new RunId(rs.getString("run_id")),
              rs.getString("step_id"),
              StepKind.fromWire(rs.getString("kind"))
                  .orElseThrow(() -> new IllegalStateException("stored step kind unknown")),
              StepStatus.fromWire(rs.getString("status")),
              strings(rs, "depends_on"),
              StoredSpecs.readStep(EntryCodec.parse(rs.getString("spec"))),
              rs.getInt("attempts"),
              rs.getString("lease_id"),
              instant(rs, "lease_deadline"),
              instant(rs, "not_before"),
              Optional.ofNullable(rs.getString("last_reason")).map(CompletionReason::fromWire),
              json(rs, "output"));

  private record RunRow(
      RunId runId,
      String name,
      RunStatus status,
      Optional<RunId> parentRunId,
      String admissionKey,
      JsonNode spec,
      String specHash,
      boolean tombstone,
      Instant createdAt,
      Optional<Instant> completedAt,
      Optional<RunCompletionReason> completionReason) {
    RunRow withStatus(RunStatus s) {
      return new RunRow(
          runId,
          name,
          s,
          parentRunId,
          admissionKey,
          spec,
          specHash,
          tombstone,
          createdAt,
          completedAt,
          completionReason);
    }
  }

  /** A step row; {@code leaseId} and {@code leaseDeadline} are null unless it is running. */
  private record StepRow(
      RunId runId,
      String stepId,
      StepKind kind,
      StepStatus status,
      List<String> dependsOn,
      StepSpec spec,
      int attempts,
      String leaseId,
      Instant leaseDeadline,
      Instant notBefore,
      Optional<CompletionReason> lastReason,
      Optional<JsonNode> output) {
    String place() {
      return runId.value() + "/" + stepId;
    }
  }

  private record LiveRow(StepRow step, RunStatus runStatus) {}

  private record ElectionRow(
      String surfacePath,
      int attempt,
      String idempotencyKey,
      boolean confirmed,
      Optional<JsonNode> output) {}

  private record Candidate(RunId runId, String stepId, int attempt) {}
}
