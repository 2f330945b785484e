package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.LeaseConflictException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.RunAdmissionConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.Backoff;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The reference journal: every rule of the contract in plain Java under one lock, timed by an
 * injected clock. Used by kernel tests, by worker tests that need no database, and as the
 * executable statement of the semantics the Postgres journal must match.
 */
public final class InMemoryJournal implements Journal {
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  private final Map<RunId, RunRow> runs = new LinkedHashMap<>();
  private final Map<String, RunId> byAdmissionKey = new HashMap<>();
  private final List<JournalRecord> entries = new ArrayList<>();
  private long seq;
  private long stepOrder;
  private long wakeups;
  private final Map<RunId, Long> runChanges = new HashMap<>();
  private Instant frozenNow; // guarded by lock; set only inside confirmAndComplete

  public InMemoryJournal(Clock clock) {
    this.clock = clock;
  }

  private static final class RunRow {
    RunId id;
    String name = "";
    RunStatus status;
    Optional<RunId> parent = Optional.empty();
    String queue = Queues.DEFAULT;
    String admissionKey;
    JsonNode specJson = NullNode.getInstance();
    String specHash = "";
    Instant createdAt;
    Instant completedAt;
    RunCompletionReason completionReason;
    // A parent's attempt suspended on this run: its leaving `running` wakes the parent.
    boolean wakesParent;
    final Map<String, StepRow> steps = new LinkedHashMap<>();
  }

  private static final class StepRow {
    StepSpec spec;
    StepStatus status;
    int attempts;
    String leaseId;
    Instant leaseDeadline;
    long leaseMs;
    WorkerId worker;
    Instant notBefore;
    CompletionReason lastReason;
    // Attempts that ended suspended: they do not count against maxIterations.
    int suspensions;
    JsonNode output;
    long order;
    // Why the step waits, as a worker that could not take it noted at `noteAttempts` attempts.
    String note;
    int noteAttempts;
    final Map<String, Election> elections = new LinkedHashMap<>();
  }

  private static final class Election {
    int attempt;
    String key;
    boolean confirmed;
    JsonNode output;
  }

  @Override
  public StartedRun startRun(StartRun r) {
    lock.lock();
    try {
      Instant now = clock.instant();
      String hash = RunSpecJson.hash(r.spec());
      RunId existingByKey = byAdmissionKey.get(r.admissionKey());
      if (r.runId().isPresent()) {
        RunRow byId = runs.get(r.runId().get());
        if (byId != null && !byId.admissionKey.equals(r.admissionKey())) {
          if (byId.status.terminal()) {
            throw new RunTerminalException(
                "run " + byId.id + " is already " + byId.status.wire(), byId.id.value());
          }
          throw new RunAdmissionConflictException(r.admissionKey(), byId.id.value());
        }
      }
      if (existingByKey != null) {
        RunRow existing = runs.get(existingByKey);
        if (!existing.specHash.equals(hash)
            || (r.runId().isPresent() && !r.runId().get().equals(existing.id))) {
          throw new RunAdmissionConflictException(r.admissionKey(), existing.id.value());
        }
        return new StartedRun(existing.id, false, existing.status);
      }
      RunRow run = new RunRow();
      run.id = r.runId().orElseGet(RunId::random);
      run.status = Lifecycle.run(RunTransition.SPAWNED, Optional.empty());
      run.name = r.spec().name();
      run.parent = r.parentRunId();
      // A child is in its parent's queue, so a flow's whole tree is served by the root's queue.
      run.queue = r.parentRunId().map(runs::get).map(p -> p.queue).orElse(r.queue());
      run.admissionKey = r.admissionKey();
      run.specJson = RunSpecJson.write(r.spec());
      run.specHash = hash;
      run.createdAt = now;
      for (StepSpec s : r.spec().steps()) {
        StepRow step = new StepRow();
        step.spec = s;
        step.status = s.dependsOn().isEmpty() ? StepStatus.READY : StepStatus.WAITING;
        step.notBefore = now;
        step.order = stepOrder++;
        run.steps.put(s.id(), step);
      }
      runs.put(run.id, run);
      byAdmissionKey.put(run.admissionKey, run.id);
      append(
          now,
          new JournalEntry.RunSpawned(
              run.id, run.specJson, hash, r.parentRunId(), r.admissionKey(), r.createdBy()));
      wake();
      return new StartedRun(run.id, true, run.status);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public List<ClaimedAttempt> claim(ClaimRequest req) {
    lock.lock();
    try {
      Instant now = clock.instant();
      record Candidate(RunRow run, StepRow step) {}
      List<Candidate> ready = new ArrayList<>();
      for (RunRow run : runs.values()) {
        if (run.status != RunStatus.RUNNING || !req.serves(run.queue)) {
          continue;
        }
        for (StepRow step : run.steps.values()) {
          if (req.kinds().contains(step.spec.kind())
              && req.accepts(dev.flows.kernel.spec.Routes.of(step.spec))
              && Lifecycle.claimable(step.status, step.notBefore, now)) {
            ready.add(new Candidate(run, step));
          }
        }
      }
      ready.sort(
          Comparator.comparing((Candidate c) -> c.step.notBefore)
              .thenComparingLong(c -> c.step.order));
      List<ClaimedAttempt> claimed = new ArrayList<>();
      for (Candidate c : ready.subList(0, Math.min(req.capacity(), ready.size()))) {
        StepRow step = c.step;
        step.status = Lifecycle.step(StepTransition.CLAIMED, step.status);
        step.attempts++;
        step.leaseId = Keys.leaseId(c.run.id, step.spec.id(), step.attempts);
        step.leaseMs = step.spec.leaseMs().orElse(req.defaultLease().toMillis());
        step.leaseDeadline = now.plusMillis(step.leaseMs);
        step.worker = req.workerId();
        String key = Keys.idempotencyKey(c.run.id, step.spec.id());
        append(
            now,
            new JournalEntry.StepAttemptStarted(
                c.run.id,
                step.spec.id(),
                step.attempts,
                step.spec.kind(),
                key,
                step.leaseId,
                step.leaseDeadline,
                req.workerId()));
        claimed.add(
            new ClaimedAttempt(
                new LeaseToken(c.run.id, step.spec.id(), step.attempts, step.leaseId),
                step.leaseDeadline,
                step.leaseMs,
                step.spec,
                key,
                c.run.parent));
      }
      return claimed;
    } finally {
      lock.unlock();
    }
  }

  /** The fence: the attempt named by the token is the live one, and its deadline is ahead. */
  private StepRow live(LeaseToken t, Instant now) {
    RunRow run = runs.get(t.runId());
    if (run == null) {
      throw new NotFoundException(
          ErrorCode.RUN_NOT_FOUND, "no run " + t.runId(), t.runId().value());
    }
    if (run.status.terminal()) {
      throw new RunTerminalException(
          "run " + run.id + " is already " + run.status.wire(), run.id.value());
    }
    StepRow step = run.steps.get(t.stepId());
    if (step == null
        || step.status != StepStatus.RUNNING
        || step.attempts != t.attempt()
        || !t.leaseId().equals(step.leaseId)
        || !Lifecycle.leaseLive(step.leaseDeadline, now)) {
      throw new LeaseConflictException("attempt does not hold a live lease", t.place());
    }
    return step;
  }

  @Override
  public Instant heartbeat(LeaseToken lease) {
    lock.lock();
    try {
      Instant now = clock.instant();
      StepRow step = live(lease, now);
      step.leaseDeadline = now.plusMillis(step.leaseMs);
      return step.leaseDeadline;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public EffectElection recordEffect(LeaseToken lease, String surfacePath) {
    lock.lock();
    try {
      Instant now = clock.instant();
      StepRow step = live(lease, now);
      if (!(step.spec.body() instanceof StepBody.Agent agent) || !agent.declares(surfacePath)) {
        throw new FlowsException(
            ErrorCode.EFFECT_NOT_DECLARED,
            "surface " + surfacePath + " is not declared by step " + lease.stepId(),
            lease.place(),
            "declare it in the agent step's surfaces.external");
      }
      String key = Keys.idempotencyKey(lease.runId(), lease.stepId());
      Election e = step.elections.get(surfacePath);
      if (e == null) {
        e = new Election();
        e.attempt = lease.attempt();
        e.key = key;
        step.elections.put(surfacePath, e);
        append(
            now,
            new JournalEntry.EffectRecorded(
                lease.runId(), lease.stepId(), lease.attempt(), surfacePath, key, false));
        return new EffectElection(key, false, false, Optional.empty());
      }
      if (e.confirmed) {
        return new EffectElection(e.key, true, false, Optional.ofNullable(e.output));
      }
      if (e.attempt == lease.attempt()) {
        return new EffectElection(e.key, false, false, Optional.empty());
      }
      e.attempt = lease.attempt();
      append(
          now,
          new JournalEntry.EffectRecorded(
              lease.runId(), lease.stepId(), lease.attempt(), surfacePath, e.key, true));
      return new EffectElection(e.key, false, true, Optional.empty());
    } finally {
      lock.unlock();
    }
  }

  @Override
  public EffectElection recordConfirmedEffect(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    lock.lock();
    try {
      EffectElection e = recordEffect(lease, surfacePath);
      if (!e.deduped()) {
        confirmEffect(lease, surfacePath, output);
      }
      return e;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void confirmEffect(LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    lock.lock();
    try {
      Instant now = now();
      StepRow step = live(lease, now);
      Election e = step.elections.get(surfacePath);
      if (e == null || e.attempt != lease.attempt()) {
        throw new FlowsException(
            ErrorCode.EFFECT_NOT_RECORDED,
            "this attempt holds no election for " + surfacePath,
            lease.place(),
            "record the effect before confirming it");
      }
      if (e.confirmed) {
        return;
      }
      e.confirmed = true;
      e.output = output.isPresent() ? output.get().deepCopy() : null;
      append(
          now,
          new JournalEntry.EffectConfirmed(
              lease.runId(), lease.stepId(), lease.attempt(), surfacePath, e.key, output));
    } finally {
      lock.unlock();
    }
  }

  @Override
  public CompletionAck complete(LeaseToken lease, StepOutcome outcome) {
    lock.lock();
    try {
      Instant now = now();
      StepRow step = live(lease, now);
      RunRow run = runs.get(lease.runId());
      List<JournalEntry.EffectRef> effects = new ArrayList<>();
      for (Map.Entry<String, Election> e : step.elections.entrySet()) {
        if (e.getValue().attempt == lease.attempt()) {
          if (e.getValue().confirmed) {
            effects.add(new JournalEntry.EffectRef(e.getKey(), e.getValue().key));
          } else if (outcome instanceof StepOutcome.Succeeded) {
            throw new FlowsException(
                ErrorCode.EFFECT_UNCONFIRMED,
                "effect " + e.getKey() + " was recorded but never confirmed",
                lease.place(),
                "confirm the effect, or complete the attempt as failed");
          }
        }
      }
      if (outcome instanceof StepOutcome.Suspended w) {
        RunRow awaited = runs.get(w.awaiting());
        if (awaited == null || !awaited.parent.equals(Optional.of(run.id))) {
          throw new FlowsException(
              ErrorCode.INVALID_INPUT,
              "run " + w.awaiting() + " is not a child of " + run.id,
              lease.place(),
              "suspend only on a child run the body started");
        }
      }
      String key = Keys.idempotencyKey(lease.runId(), lease.stepId());
      clearLease(step);
      return switch (outcome) {
        case StepOutcome.Succeeded s -> {
          step.status = Lifecycle.step(StepTransition.COMPLETED_SUCCESS, step.status);
          step.output = s.output().deepCopy();
          step.lastReason = CompletionReason.SUCCESS;
          append(
              now,
              new JournalEntry.StepCompleted(
                  run.id,
                  lease.stepId(),
                  lease.attempt(),
                  CompletionReason.SUCCESS,
                  Disposition.STEP_DONE,
                  Optional.of(s.output()),
                  effects,
                  Optional.empty(),
                  Optional.empty()));
          afterSuccess(run, now);
          yield new CompletionAck(
              CompletionReason.SUCCESS, Disposition.STEP_DONE, Optional.empty(), run.status);
        }
        case StepOutcome.Failed f -> {
          if (f.retryable() && lease.attempt() - step.suspensions < step.spec.maxIterations()) {
            step.status = Lifecycle.step(StepTransition.COMPLETED_RETRY, step.status);
            step.notBefore =
                now.plusMillis(Backoff.delayMs(step.spec.retry(), lease.attempt(), key));
            step.lastReason = f.reason();
            append(
                now,
                new JournalEntry.StepCompleted(
                    run.id,
                    lease.stepId(),
                    lease.attempt(),
                    f.reason(),
                    Disposition.RETRY,
                    Optional.empty(),
                    effects,
                    Optional.of(f.trajectoryTail()),
                    Optional.of(step.notBefore)));
            wake();
            yield new CompletionAck(
                f.reason(), Disposition.RETRY, Optional.of(step.notBefore), run.status);
          }
          CompletionReason reason = f.retryable() ? CompletionReason.RETRIES_EXHAUSTED : f.reason();
          step.status = Lifecycle.step(StepTransition.COMPLETED_FAILED, step.status);
          step.lastReason = reason;
          append(
              now,
              new JournalEntry.StepCompleted(
                  run.id,
                  lease.stepId(),
                  lease.attempt(),
                  reason,
                  Disposition.STEP_DONE,
                  Optional.empty(),
                  effects,
                  Optional.of(f.trajectoryTail()),
                  Optional.empty()));
          failRun(run, lease.stepId(), now);
          yield new CompletionAck(reason, Disposition.STEP_DONE, Optional.empty(), run.status);
        }
        case StepOutcome.Parked p -> {
          step.status = Lifecycle.step(StepTransition.COMPLETED_PARKED, step.status);
          step.lastReason = p.reason();
          append(
              now,
              new JournalEntry.StepCompleted(
                  run.id,
                  lease.stepId(),
                  lease.attempt(),
                  p.reason(),
                  Disposition.PARK,
                  Optional.empty(),
                  effects,
                  Optional.of(p.trajectoryTail()),
                  Optional.empty()));
          if (run.status == RunStatus.RUNNING) {
            run.status = Lifecycle.run(RunTransition.STEP_PARKED, Optional.of(run.status));
            wakeParent(run, now);
          }
          yield new CompletionAck(p.reason(), Disposition.PARK, Optional.empty(), run.status);
        }
        case StepOutcome.Suspended w -> {
          RunRow awaited = runs.get(w.awaiting());
          awaited.wakesParent = true;
          step.status = Lifecycle.step(StepTransition.SUSPENDED, step.status);
          // Settled already (it ended while the body decided to wait): ready at once.
          step.notBefore = awaited.status == RunStatus.RUNNING ? now.plus(w.recheckAfter()) : now;
          step.lastReason = CompletionReason.SUSPENDED;
          step.suspensions++;
          append(
              now,
              new JournalEntry.StepCompleted(
                  run.id,
                  lease.stepId(),
                  lease.attempt(),
                  CompletionReason.SUSPENDED,
                  Disposition.RETRY,
                  Optional.empty(),
                  effects,
                  Optional.empty(),
                  Optional.of(step.notBefore)));
          wake();
          yield new CompletionAck(
              CompletionReason.SUSPENDED,
              Disposition.RETRY,
              Optional.of(step.notBefore),
              run.status);
        }
      };
    } finally {
      lock.unlock();
    }
  }

  /**
   * A run that a suspended parent attempt awaits has left {@code running}: the parent's suspended
   * steps are ready now.
   */
  private void wakeParent(RunRow run, Instant now) {
    if (!run.wakesParent || run.parent.isEmpty()) {
      return;
    }
    RunRow parent = runs.get(run.parent.get());
    if (parent == null) {
      return;
    }
    for (StepRow s : parent.steps.values()) {
      if (s.status == StepStatus.READY
          && s.lastReason == CompletionReason.SUSPENDED
          && s.notBefore.isAfter(now)) {
        s.notBefore = now;
        wake();
      }
    }
  }

  private void afterSuccess(RunRow run, Instant now) {
    boolean woke = false;
    for (StepRow s : run.steps.values()) {
      if (s.status == StepStatus.WAITING
          && s.spec.dependsOn().stream()
              .allMatch(d -> run.steps.get(d).status == StepStatus.SUCCEEDED)) {
        s.status = Lifecycle.step(StepTransition.DEPENDENCIES_MET, s.status);
        s.notBefore = now;
        woke = true;
      }
    }
    if (run.steps.values().stream().allMatch(s -> s.status == StepStatus.SUCCEEDED)) {
      run.status = Lifecycle.run(RunTransition.ALL_STEPS_SUCCEEDED, Optional.of(run.status));
      wakeParent(run, now);
      run.completedAt = now;
      run.completionReason = RunCompletionReason.SUCCESS;
      append(
          now,
          new JournalEntry.RunCompleted(run.id, RunCompletionReason.SUCCESS, Optional.empty()));
      woke = true;
    }
    if (woke) {
      wake();
    }
  }

  private void failRun(RunRow run, String stepId, Instant now) {
    if (run.status != RunStatus.RUNNING) {
      // A parked run stays parked: the operator's resolution comes first.
      return;
    }
    run.status = Lifecycle.run(RunTransition.STEP_FAILED, Optional.of(run.status));
    wakeParent(run, now);
    run.completedAt = now;
    run.completionReason = RunCompletionReason.STEP_FAILED;
    append(
        now,
        new JournalEntry.RunCompleted(
            run.id, RunCompletionReason.STEP_FAILED, Optional.of(stepId)));
    wake();
  }

  private static void clearLease(StepRow step) {
    step.leaseId = null;
    step.leaseDeadline = null;
    step.worker = null;
  }

  @Override
  public CancelOutcome cancelRun(RunId runId, String reason) {
    lock.lock();
    try {
      Instant now = clock.instant();
      RunRow run = runs.get(runId);
      if (run == null) {
        run = new RunRow();
        run.id = runId;
        run.status = Lifecycle.run(RunTransition.TOMBSTONED, Optional.empty());
        run.admissionKey = "tombstone:" + runId.value();
        run.createdAt = now;
        run.completedAt = now;
        run.completionReason = RunCompletionReason.CANCELED;
        runs.put(runId, run);
        byAdmissionKey.put(run.admissionKey, runId);
        append(now, new JournalEntry.RunCancelRequested(runId, reason));
        wake();
        return new CancelOutcome(runId, run.status, true, false);
      }
      if (run.status.terminal()) {
        return new CancelOutcome(runId, run.status, false, true);
      }
      append(now, new JournalEntry.RunCancelRequested(runId, reason));
      // Its open children too: a suspended body is not there to cancel the call it waits on.
      for (RunRow child : List.copyOf(runs.values())) {
        if (child.parent.equals(Optional.of(runId)) && !child.status.terminal()) {
          cancelRun(child.id, "its parent run " + runId + " was canceled");
        }
      }
      for (StepRow s : run.steps.values()) {
        Optional<StepTransition> t = Lifecycle.cancelFor(s.status);
        if (t.isEmpty()) {
          continue;
        }
        boolean wasRunning = s.status == StepStatus.RUNNING;
        s.status = Lifecycle.step(t.get(), s.status);
        if (wasRunning) {
          s.lastReason = CompletionReason.CANCELED;
          clearLease(s);
          append(
              now,
              new JournalEntry.StepCompleted(
                  runId,
                  s.spec.id(),
                  s.attempts,
                  CompletionReason.CANCELED,
                  Disposition.STEP_DONE,
                  Optional.empty(),
                  List.of(),
                  Optional.empty(),
                  Optional.empty()));
        }
      }
      run.status =
          Lifecycle.run(Lifecycle.cancelFor(run.status).orElseThrow(), Optional.of(run.status));
      wakeParent(run, now);
      run.completedAt = now;
      run.completionReason = RunCompletionReason.CANCELED;
      append(
          now,
          new JournalEntry.RunCompleted(runId, RunCompletionReason.CANCELED, Optional.empty()));
      wake();
      return new CancelOutcome(runId, run.status, false, false);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public List<ExpiredAttempt> expireLeases() {
    lock.lock();
    try {
      Instant now = clock.instant();
      List<ExpiredAttempt> expired = new ArrayList<>();
      for (RunRow run : runs.values()) {
        if (run.status.terminal()) {
          continue;
        }
        for (StepRow s : run.steps.values()) {
          if (s.status != StepStatus.RUNNING || Lifecycle.leaseLive(s.leaseDeadline, now)) {
            continue;
          }
          LeaseToken token = new LeaseToken(run.id, s.spec.id(), s.attempts, s.leaseId);
          clearLease(s);
          String key = Keys.idempotencyKey(run.id, s.spec.id());
          if (s.attempts - s.suspensions < s.spec.maxIterations()) {
            s.status = Lifecycle.step(StepTransition.LEASE_EXPIRED_RETRY, s.status);
            s.notBefore = now.plusMillis(Backoff.delayMs(s.spec.retry(), s.attempts, key));
            s.lastReason = CompletionReason.LEASE_EXPIRED;
            append(
                now,
                new JournalEntry.StepCompleted(
                    run.id,
                    s.spec.id(),
                    s.attempts,
                    CompletionReason.LEASE_EXPIRED,
                    Disposition.RETRY,
                    Optional.empty(),
                    List.of(),
                    Optional.empty(),
                    Optional.of(s.notBefore)));
            expired.add(new ExpiredAttempt(token, Disposition.RETRY));
            wake();
          } else {
            s.status = Lifecycle.step(StepTransition.LEASE_EXPIRED_EXHAUSTED, s.status);
            s.lastReason = CompletionReason.RETRIES_EXHAUSTED;
            append(
                now,
                new JournalEntry.StepCompleted(
                    run.id,
                    s.spec.id(),
                    s.attempts,
                    CompletionReason.RETRIES_EXHAUSTED,
                    Disposition.STEP_DONE,
                    Optional.empty(),
                    List.of(),
                    Optional.empty(),
                    Optional.empty()));
            expired.add(new ExpiredAttempt(token, Disposition.STEP_DONE));
            failRun(run, s.spec.id(), now);
            break;
          }
        }
      }
      return expired;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public RunSnapshot resumeRun(RunId runId, String by) {
    lock.lock();
    try {
      Instant now = clock.instant();
      RunRow run = existing(runId);
      switch (run.status) {
        case RUNNING -> {
          return snapshot(run);
        }
        case SUCCEEDED, CANCELED ->
            throw new RunTerminalException(
                "run " + runId + " is " + run.status.wire() + " and cannot resume", runId.value());
        case FAILED -> {
          run.status = Lifecycle.run(RunTransition.RESUMED, Optional.of(run.status));
          run.completedAt = null;
          run.completionReason = null;
        }
        case PARKED -> run.status = Lifecycle.run(RunTransition.UNPARKED, Optional.of(run.status));
      }
      for (StepRow s : run.steps.values()) {
        if (s.status == StepStatus.FAILED) {
          s.status = Lifecycle.step(StepTransition.RESUMED, s.status);
          s.notBefore = now;
        } else if (s.status == StepStatus.PARKED) {
          s.status = Lifecycle.step(StepTransition.RESOLVED, s.status);
          s.notBefore = now;
        }
      }
      append(now, new JournalEntry.RunResumed(runId, by));
      wake();
      return snapshot(run);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public RunSnapshot resolveStep(
      RunId runId, String stepId, Optional<JsonNode> performed, String by) {
    lock.lock();
    try {
      Instant now = clock.instant();
      RunRow run = existing(runId);
      StepRow step = run.steps.get(stepId);
      if (step == null) {
        throw new NotFoundException(
            ErrorCode.STEP_NOT_FOUND, "run " + runId + " has no step " + stepId, stepId);
      }
      if (step.status != StepStatus.PARKED) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "step " + stepId + " is " + step.status.wire() + ", not parked",
            runId.value() + "/" + stepId,
            "only a parked step can be resolved");
      }
      append(
          now,
          new JournalEntry.StepResolved(
              runId, stepId, performed.isPresent(), performed.map(JsonNode::deepCopy), by));
      if (performed.isPresent()) {
        for (Election e : step.elections.values()) {
          if (!e.confirmed) {
            e.confirmed = true;
            e.output = performed.get().deepCopy();
          }
        }
        step.status = Lifecycle.step(StepTransition.RESOLVED_PERFORMED, step.status);
        step.output = performed.get().deepCopy();
        step.lastReason = CompletionReason.SUCCESS;
      } else {
        step.elections.values().removeIf(e -> !e.confirmed);
        step.status = Lifecycle.step(StepTransition.RESOLVED, step.status);
        step.notBefore = now;
      }
      if (run.status == RunStatus.PARKED
          && run.steps.values().stream().noneMatch(s -> s.status == StepStatus.PARKED)) {
        run.status = Lifecycle.run(RunTransition.UNPARKED, Optional.of(run.status));
      }
      if (run.status == RunStatus.RUNNING) {
        afterSuccess(run, now);
      }
      wake();
      return snapshot(run);
    } finally {
      lock.unlock();
    }
  }

  private RunRow existing(RunId runId) {
    RunRow run = runs.get(runId);
    if (run == null) {
      throw new NotFoundException(ErrorCode.RUN_NOT_FOUND, "no run " + runId, runId.value());
    }
    return run;
  }

  @Override
  public Optional<RunSnapshot> run(RunId runId) {
    lock.lock();
    try {
      return Optional.ofNullable(runs.get(runId)).map(this::snapshot);
    } finally {
      lock.unlock();
    }
  }

  private RunSnapshot snapshot(RunRow r) {
    List<StepSnapshot> steps = new ArrayList<>();
    for (StepRow s : r.steps.values()) {
      steps.add(
          new StepSnapshot(
              s.spec.id(),
              s.spec.kind(),
              s.status,
              s.attempts,
              s.notBefore,
              Optional.ofNullable(s.lastReason),
              Optional.ofNullable(s.output).map(JsonNode::deepCopy)));
    }
    return new RunSnapshot(
        r.id,
        r.name,
        r.status,
        r.parent,
        r.admissionKey,
        r.specJson.deepCopy(),
        r.specHash,
        r.createdAt,
        Optional.ofNullable(r.completedAt),
        Optional.ofNullable(r.completionReason),
        steps,
        r.queue,
        r.steps.values().stream()
            .filter(s -> s.note != null && s.status == StepStatus.READY)
            .filter(s -> s.noteAttempts == s.attempts)
            .map(s -> s.note)
            .findFirst());
  }

  @Override
  public int noteUnaccepted(ClaimRequest req, String routePrefix, String reason) {
    lock.lock();
    try {
      Instant now = clock.instant();
      int noted = 0;
      for (RunRow run : runs.values()) {
        if (run.status != RunStatus.RUNNING || !req.serves(run.queue)) {
          continue;
        }
        for (StepRow step : run.steps.values()) {
          String route = dev.flows.kernel.spec.Routes.of(step.spec);
          if (noted < req.capacity()
              && req.kinds().contains(step.spec.kind())
              && route.startsWith(routePrefix)
              && !req.accepts(route)
              && Lifecycle.claimable(step.status, step.notBefore, now)
              && !(step.note != null && step.noteAttempts == step.attempts)) {
            step.note = reason;
            step.noteAttempts = step.attempts;
            noted++;
          }
        }
      }
      return noted;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public List<JournalRecord> entries(RunId runId) {
    lock.lock();
    try {
      return entries.stream().filter(e -> e.entry().runId().equals(runId)).toList();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public List<RunId> children(RunId parent) {
    lock.lock();
    try {
      return runs.values().stream()
          .filter(r -> r.parent.equals(Optional.of(parent)))
          .map(r -> r.id)
          .toList();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean awaitWork(Duration timeout) throws InterruptedException {
    lock.lock();
    try {
      long seen = wakeups;
      long nanos = timeout.toNanos();
      while (wakeups == seen) {
        if (nanos <= 0) {
          return false;
        }
        nanos = work.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  private void append(Instant at, JournalEntry e) {
    entries.add(new JournalRecord(++seq, at, e));
    // Every entry is a change of its run: wake the run's watchers (awaitWork waiters re-check
    // their own counter and keep waiting).
    runChanges.merge(e.runId(), 1L, Long::sum);
    work.signalAll();
  }

  private void wake() {
    wakeups++;
    work.signalAll();
  }

  // ---------------------------------------------------------------- inline effects (perf-mcp)

  @Override
  public ClaimedEffect startClaimed(
      StartRun r, WorkerId worker, Duration lease, String surfacePath) {
    StepSpec only = ClaimedEffect.inlineStep(r, surfacePath);
    lock.lock();
    try {
      Instant now = clock.instant();
      if (r.runId().isPresent()) {
        RunRow byId = runs.get(r.runId().get());
        if (byId != null) {
          if (!byId.admissionKey.equals(r.admissionKey()) && byId.status.terminal()) {
            throw new RunTerminalException(
                "run " + byId.id + " is already " + byId.status.wire(), byId.id.value());
          }
          throw new RunAdmissionConflictException(
              r.admissionKey(), byId.id.value(), "the run id was already admitted");
        }
      }
      RunId existing = byAdmissionKey.get(r.admissionKey());
      if (existing != null) {
        throw new RunAdmissionConflictException(
            r.admissionKey(), existing.value(), "the admission key was already used");
      }
      StartedRun started = startRun(r);
      RunRow run = runs.get(started.runId());
      StepRow step = run.steps.get(only.id());
      step.status = Lifecycle.step(StepTransition.CLAIMED, step.status);
      step.attempts = 1;
      step.leaseId = Keys.leaseId(run.id, only.id(), 1);
      step.leaseMs = only.leaseMs().orElse(lease.toMillis());
      step.leaseDeadline = now.plusMillis(step.leaseMs);
      step.worker = worker;
      String key = Keys.idempotencyKey(run.id, only.id());
      append(
          now,
          new JournalEntry.StepAttemptStarted(
              run.id, only.id(), 1, only.kind(), key, step.leaseId, step.leaseDeadline, worker));
      LeaseToken token = new LeaseToken(run.id, only.id(), 1, step.leaseId);
      EffectElection election = recordEffect(token, surfacePath);
      return new ClaimedEffect(
          new ClaimedAttempt(token, step.leaseDeadline, step.leaseMs, only, key, run.parent),
          election);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public CompletionAck confirmAndComplete(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, StepOutcome outcome) {
    lock.lock();
    try {
      // Every check runs before anything is written, at one instant, so a refusal writes nothing.
      frozenNow = clock.instant();
      StepRow step = live(lease, frozenNow);
      Election e = step.elections.get(surfacePath);
      if (e == null || e.attempt != lease.attempt()) {
        throw new FlowsException(
            ErrorCode.EFFECT_NOT_RECORDED,
            "this attempt holds no election for " + surfacePath,
            lease.place(),
            "record the effect before confirming it");
      }
      if (outcome instanceof StepOutcome.Succeeded) {
        for (Map.Entry<String, Election> other : step.elections.entrySet()) {
          if (!other.getKey().equals(surfacePath)
              && other.getValue().attempt == lease.attempt()
              && !other.getValue().confirmed) {
            throw new FlowsException(
                ErrorCode.EFFECT_UNCONFIRMED,
                "effect " + other.getKey() + " was recorded but never confirmed",
                lease.place(),
                "confirm the effect, or complete the attempt as failed");
          }
        }
      }
      confirmEffect(lease, surfacePath, output);
      return complete(lease, outcome);
    } finally {
      frozenNow = null;
      lock.unlock();
    }
  }

  /** The clock, unless a composite verb froze "now" so its parts judge the lease alike. */
  private Instant now() {
    return frozenNow != null ? frozenNow : clock.instant();
  }

  @Override
  public RunWatch watchRun(RunId runId) {
    lock.lock();
    long[] seen = {runChanges.getOrDefault(runId, 0L)};
    lock.unlock();
    return new RunWatch() {
      @Override
      public boolean await(Duration timeout) throws InterruptedException {
        lock.lock();
        try {
          long nanos = timeout.toNanos();
          while (runChanges.getOrDefault(runId, 0L) == seen[0]) {
            if (nanos <= 0) {
              return false;
            }
            nanos = work.awaitNanos(nanos);
          }
          seen[0] = runChanges.getOrDefault(runId, 0L);
          return true;
        } finally {
          lock.unlock();
        }
      }

      @Override
      public void close() {}
    };
  }

  // ---- batched lease renewal and the reconciler's and claimer's timing (perf-lease)

  /** Under the one lock: every lease is judged against the same "now". */
  @Override
  public LeaseRenewals renewLeases(java.util.Collection<LeaseToken> leases) {
    if (leases.isEmpty()) {
      return LeaseRenewals.none();
    }
    lock.lock();
    try {
      Instant now = clock.instant();
      Map<LeaseToken, Instant> renewed = new HashMap<>();
      Map<LeaseToken, ErrorCode> refused = new HashMap<>();
      for (LeaseToken lease : leases) {
        try {
          StepRow step = live(lease, now);
          step.leaseDeadline = now.plusMillis(step.leaseMs);
          renewed.put(lease, step.leaseDeadline);
        } catch (FlowsException e) {
          refused.put(lease, e.code());
        }
      }
      return new LeaseRenewals(renewed, refused);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<Duration> untilNextLeaseDeadline() {
    lock.lock();
    try {
      Instant now = clock.instant();
      return runs.values().stream()
          .filter(r -> !r.status.terminal())
          .flatMap(r -> r.steps.values().stream())
          .filter(s -> s.status == StepStatus.RUNNING)
          .map(s -> s.leaseDeadline)
          .min(Comparator.naturalOrder())
          .map(d -> d.isAfter(now) ? Duration.between(now, d) : Duration.ZERO);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<Duration> untilNextClaimable(ClaimRequest request) {
    lock.lock();
    try {
      Instant now = clock.instant();
      return runs.values().stream()
          .filter(r -> r.status == RunStatus.RUNNING && request.serves(r.queue))
          .flatMap(r -> r.steps.values().stream())
          .filter(
              s ->
                  s.status == StepStatus.READY
                      && s.notBefore.isAfter(now)
                      && request.kinds().contains(s.spec.kind())
                      && request.accepts(dev.flows.kernel.spec.Routes.of(s.spec)))
          .map(s -> s.notBefore)
          .min(Comparator.naturalOrder())
          .map(t -> Duration.between(now, t));
    } finally {
      lock.unlock();
    }
  }
}
