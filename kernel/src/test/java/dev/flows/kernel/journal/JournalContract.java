package dev.flows.kernel.journal;

import static dev.flows.kernel.journal.Specs.agent;
import static dev.flows.kernel.journal.Specs.command;
import static dev.flows.kernel.journal.Specs.dependsOn;
import static dev.flows.kernel.journal.Specs.iterations;
import static dev.flows.kernel.journal.Specs.lease;
import static dev.flows.kernel.journal.Specs.llm;
import static dev.flows.kernel.journal.Specs.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.lifecycle.TransitionLog;
import dev.flows.kernel.mcp.McpReceipt;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The behaviour every {@link Journal} must have. Implementations extend this class, hand out a
 * fresh, empty journal per test and say how time passes for it. After the suite, every declared run
 * and step transition must have been exercised, or the suite fails.
 */
public abstract class JournalContract {
  protected static final WorkerId WORKER = new WorkerId("worker-contract");
  protected static final Duration LONG_LEASE = Duration.ofSeconds(30);
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  protected Journal journal;

  /** A journal with no runs in it. */
  protected abstract Journal newJournal();

  /** A journal with no runs in it, taking payloads within {@code limits}. */
  protected abstract Journal newJournal(PayloadLimits limits);

  /** Lets {@code d} pass on the journal's clock (advance a fake clock, or sleep). */
  protected abstract void elapse(Duration d);

  /** The lease used where a test wants an attempt to expire. */
  protected Duration shortLease() {
    return Duration.ofMillis(400);
  }

  /** How long to let pass so a short lease (or a 1 ms backoff) is surely over. */
  protected Duration pastShortLease() {
    return shortLease().plusMillis(250);
  }

  /**
   * The transitions {@code journal} (one {@link #newJournal} made) has taken: its own record, so
   * that only what this suite made this kind of journal do counts.
   */
  protected abstract TransitionLog transitions(Journal journal);

  /** The transitions taken by the journals of each concrete suite class so far. */
  private static final Map<Class<?>, Coverage> COVERAGE = new ConcurrentHashMap<>();

  /** Transitions exercised by one suite class's journals. */
  private static final class Coverage {
    final Set<StepTransition> steps = ConcurrentHashMap.newKeySet();
    final Set<RunTransition> runs = ConcurrentHashMap.newKeySet();

    void add(TransitionLog log) {
      log.stepCounts().forEach((t, n) -> addIf(steps, t, n));
      log.runCounts().forEach((t, n) -> addIf(runs, t, n));
    }

    private static <T> void addIf(Set<T> set, T t, long n) {
      if (n > 0) {
        set.add(t);
      }
    }
  }

  @BeforeEach
  void freshJournal() {
    journal = newJournal();
  }

  @AfterEach
  void countTheJournalsTransitions() {
    COVERAGE.computeIfAbsent(getClass(), c -> new Coverage()).add(transitions(journal));
  }

  @AfterAll
  static void everyDeclaredTransitionWasExercisedByThisSuitesJournals(TestInfo suite) {
    Coverage c = COVERAGE.getOrDefault(suite.getTestClass().orElseThrow(), new Coverage());
    assertThat(EnumSet.complementOf(enumSet(c.steps, StepTransition.class)))
        .as("step transitions this suite's journals never took")
        .isEmpty();
    assertThat(EnumSet.complementOf(enumSet(c.runs, RunTransition.class)))
        .as("run transitions this suite's journals never took")
        .isEmpty();
  }

  private static <E extends Enum<E>> EnumSet<E> enumSet(Set<E> set, Class<E> type) {
    EnumSet<E> s = EnumSet.noneOf(type);
    s.addAll(set);
    return s;
  }

  // ---- helpers

  protected RunRef start(RunSpec spec) {
    return journal.admit(StartRun.of("key-" + System.nanoTime(), spec), Admit.queued()).runId();
  }

  protected List<ClaimedAttempt> claim(int capacity, StepKind... kinds) {
    Set<StepKind> k = kinds.length == 0 ? EnumSet.allOf(StepKind.class) : Set.of(kinds);
    return journal.claim(new ClaimRequest(WORKER, k, capacity, LONG_LEASE));
  }

  protected ClaimedAttempt claimOne() {
    List<ClaimedAttempt> c = claim(1);
    assertThat(c).as("one claimable step").hasSize(1);
    return c.getFirst();
  }

  protected RunSnapshot snapshot(RunRef id) {
    return journal.run(id).orElseThrow();
  }

  protected StepStatus stepStatus(RunRef id, String step) {
    return snapshot(id).step(step).orElseThrow().status();
  }

  protected List<String> types(RunRef id) {
    return journal.entries(id).stream().map(r -> r.entry().type()).toList();
  }

  protected <T extends JournalEntry> List<T> entriesOf(RunRef id, Class<T> type) {
    return journal.entries(id).stream()
        .map(JournalRecord::entry)
        .filter(type::isInstance)
        .map(type::cast)
        .toList();
  }

  protected static JsonNode json(String field, String value) {
    return JSON.objectNode().put(field, value);
  }

  protected static StepOutcome ok() {
    return new StepOutcome.Succeeded(json("ok", "yes"));
  }

  protected static StepOutcome retryableFailure() {
    return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, json("why", "boom"), true);
  }

  protected static void assertRefused(Runnable r, ErrorCode code) {
    assertThatThrownBy(r::run)
        .isInstanceOf(FlowsException.class)
        .satisfies(e -> assertThat(((FlowsException) e).code()).isEqualTo(code));
  }

  /** Starts a one-step agent run with a short lease and claims it. */
  protected ClaimedAttempt expiringAttempt(int maxIterations, String... surfaces) {
    RunRef id = start(run(iterations(lease(agent("a", surfaces), shortLease()), maxIterations)));
    ClaimedAttempt a = claimOne();
    assertThat(a.lease().runId()).isEqualTo(id);
    return a;
  }

  // ---- start

  @Test
  void startingARunJournalsRunSpawnedAndMakesRootStepsReady() {
    RunSpec spec = run(command("a", "true"), dependsOn(command("b", "true"), "a"));
    StartedRun s = journal.admit(StartRun.of("k1", spec), Admit.queued());
    assertThat(s.created()).isTrue();
    assertThat(s.status()).isEqualTo(RunStatus.RUNNING);
    RunSnapshot snap = snapshot(s.runId());
    assertThat(snap.name()).isEqualTo("test");
    assertThat(snap.step("a").orElseThrow().status()).isEqualTo(StepStatus.READY);
    assertThat(snap.step("b").orElseThrow().status()).isEqualTo(StepStatus.WAITING);
    List<JournalEntry.RunSpawned> spawned = entriesOf(s.runId(), JournalEntry.RunSpawned.class);
    assertThat(spawned).hasSize(1);
    assertThat(spawned.getFirst().admissionKey()).isEqualTo("k1");
    assertThat(spawned.getFirst().specHash()).isEqualTo(snap.specHash()).hasSize(64);
  }

  @Test
  void startIsIdempotentByAdmissionKey() {
    RunSpec spec = run(command("a", "true"));
    StartedRun first = journal.admit(StartRun.of("same", spec), Admit.queued());
    StartedRun again = journal.admit(StartRun.of("same", spec), Admit.queued());
    assertThat(again.runId()).isEqualTo(first.runId());
    assertThat(again.created()).isFalse();
    assertThat(types(first.runId())).containsExactly("run.spawned");
  }

  @Test
  void theSameAdmissionKeyWithAnotherSpecIsRefusedAndWritesNothing() {
    StartedRun first =
        journal.admit(StartRun.of("same", run(command("a", "true"))), Admit.queued());
    assertRefused(
        () -> journal.admit(StartRun.of("same", run(command("a", "false"))), Admit.queued()),
        ErrorCode.RUN_ADMISSION_CONFLICT);
    assertThat(types(first.runId())).containsExactly("run.spawned");
  }

  @Test
  void aCallerChosenRunIdAndParentAreKeptAndTheChildIsListed() {
    RunRef parent = start(run(agent("root")));
    RunRef child = new RunRef("child-1");
    StartedRun s =
        journal.admit(
            new StartRun(
                Optional.of(child), "ck", run(agent("a")), Optional.of(parent), "flow:root"),
            Admit.queued());
    assertThat(s.runId()).isEqualTo(child);
    assertThat(snapshot(child).parentRunId()).contains(parent);
    assertThat(journal.children(parent)).containsExactly(child);
    assertThat(entriesOf(child, JournalEntry.RunSpawned.class).getFirst().createdBy())
        .isEqualTo("flow:root");
  }

  @Test
  void aChosenRunIdAlreadyUsedUnderAnotherKeyIsRefused() {
    RunRef id = new RunRef("taken");
    journal.admit(
        new StartRun(Optional.of(id), "k1", run(agent("a")), Optional.empty(), "api"),
        Admit.queued());
    assertRefused(
        () ->
            journal.admit(
                new StartRun(Optional.of(id), "k2", run(agent("a")), Optional.empty(), "api"),
                Admit.queued()),
        ErrorCode.RUN_ADMISSION_CONFLICT);
  }

  @Test
  void aRunStartedAsARerunNamesTheRunItRepeatsInItsSnapshotAndItsSpawnEntry() {
    RunRef first = start(run(command("a", "true")));
    RunRef again =
        journal
            .admit(
                new StartRun(
                    Optional.empty(),
                    "rerun-" + System.nanoTime(),
                    run(command("a", "true")),
                    Optional.empty(),
                    "api",
                    Optional.of(first)),
                Admit.queued())
            .runId();

    assertThat(snapshot(again).rerunOf()).contains(first);
    assertThat(snapshot(first).rerunOf()).isEmpty();
    assertThat(entriesOf(again, JournalEntry.RunSpawned.class).getFirst().rerunOf())
        .contains(first);
    assertThat(entriesOf(first, JournalEntry.RunSpawned.class).getFirst().rerunOf()).isEmpty();
  }

  // ---- claim

  @Test
  void aClaimOpensAnAttemptWithALeaseAndJournalsIt() {
    RunRef id = start(run(agent("a")));
    ClaimedAttempt a = claimOne();
    assertThat(a.lease()).isEqualTo(new LeaseToken(id, "a", 1, Keys.leaseId(id, "a", 1)));
    assertThat(a.idempotencyKey()).isEqualTo(Keys.idempotencyKey(id, "a"));
    assertThat(a.leaseMs()).isEqualTo(LONG_LEASE.toMillis());
    assertThat(stepStatus(id, "a")).isEqualTo(StepStatus.RUNNING);
    List<JournalEntry.StepAttemptStarted> started =
        entriesOf(id, JournalEntry.StepAttemptStarted.class);
    assertThat(started).hasSize(1);
    assertThat(started.getFirst().workerId()).isEqualTo(WORKER);
    assertThat(started.getFirst().leaseId()).isEqualTo(a.lease().leaseId());
    assertThat(started.getFirst().stepKind()).isEqualTo(StepKind.AGENT);
    // The deadline is the claim time plus the lease, both on the journal's clock.
    Instant claimedAt =
        journal.entries(id).stream()
            .filter(r -> r.entry() instanceof JournalEntry.StepAttemptStarted)
            .findFirst()
            .orElseThrow()
            .at();
    assertThat(a.leaseDeadline())
        .isBetween(
            claimedAt.plus(LONG_LEASE).minusSeconds(1), claimedAt.plus(LONG_LEASE).plusSeconds(1));
  }

  @Test
  void aClaimServesOnlyTheRequestedKindsUpToCapacity() {
    start(run(command("c1", "true"), command("c2", "true"), llm("l"), agent("g")));
    assertThat(claim(0, StepKind.DETERMINISTIC)).isEmpty();
    assertThat(claim(1, StepKind.DETERMINISTIC)).hasSize(1);
    assertThat(claim(5, StepKind.DETERMINISTIC)).hasSize(1);
    List<ClaimedAttempt> rest = claim(5, StepKind.LLM, StepKind.AGENT);
    assertThat(rest).extracting(c -> c.step().id()).containsExactlyInAnyOrder("l", "g");
    assertThat(claim(5)).isEmpty();
  }

  @Test
  void aClaimWithRoutesTakesOnlyStepsOnThoseRoutes() {
    StepSpec flowV2 =
        new StepSpec(
            "f2",
            List.of(),
            JSON.nullNode(),
            1,
            Specs.FAST_RETRY,
            java.util.OptionalLong.empty(),
            java.util.OptionalLong.empty(),
            new StepBody.Agent(
                JSON.objectNode().put("type", "flow").put("route", "pay@2"),
                dev.flows.kernel.spec.RecoveryMode.RESET,
                List.of()));
    start(run(agent("t"), command("c", "true"), flowV2));
    List<ClaimedAttempt> none =
        journal.claim(
            new ClaimRequest(
                WORKER,
                EnumSet.allOf(StepKind.class),
                10,
                LONG_LEASE,
                Optional.of(Set.of("flow:pay@1", "llm"))));
    assertThat(none).isEmpty();
    List<ClaimedAttempt> some =
        journal.claim(
            new ClaimRequest(
                WORKER,
                EnumSet.allOf(StepKind.class),
                10,
                LONG_LEASE,
                Optional.of(Set.of("flow:pay@2", "test", "deterministic"))));
    assertThat(some).extracting(c -> c.step().id()).containsExactlyInAnyOrder("f2", "t", "c");
  }

  private static StepSpec flowStep(String id, String route) {
    return new StepSpec(
        id,
        List.of(),
        JSON.nullNode(),
        3,
        Specs.FAST_RETRY,
        java.util.OptionalLong.empty(),
        java.util.OptionalLong.empty(),
        new StepBody.Agent(
            JSON.objectNode().put("type", "flow").put("route", route),
            dev.flows.kernel.spec.RecoveryMode.RESET,
            List.of()));
  }

  private static ClaimRequest request(
      Set<String> routes, Set<String> prefixes, Optional<Set<String>> queues) {
    return new ClaimRequest(
        WORKER,
        EnumSet.allOf(StepKind.class),
        10,
        LONG_LEASE,
        Optional.of(routes),
        prefixes,
        queues);
  }

  @Test
  void aClaimWithRoutePrefixesTakesStepsWhoseRouteStartsWithOne() {
    start(run(flowStep("a", "source:aaa"), flowStep("b", "other:bbb")));
    assertThat(
            journal.claim(
                request(Set.of("deterministic"), Set.of("flow:source:"), Optional.empty())))
        .extracting(c -> c.step().id())
        .containsExactly("a");
  }

  @Test
  void aClaimWithQueuesTakesOnlyRunsOfThoseQueuesAndAChildIsInItsParentsQueue() {
    RunRef payments =
        journal
            .admit(
                StartRun.of("key-payments", run(command("p", "true"))).inQueue("payments"),
                Admit.queued())
            .runId();
    RunRef plain = start(run(command("d", "true")));
    RunRef child = new RunRef("child-of-payments");
    // The child asks for no queue: it is in its parent's all the same.
    journal.admit(
        new StartRun(
            Optional.of(child), "key-child", run(command("c", "true")), Optional.of(payments), "t"),
        Admit.queued());
    assertThat(snapshot(payments).queue()).isEqualTo("payments");
    assertThat(snapshot(plain).queue()).isEqualTo(Queues.DEFAULT);
    assertThat(snapshot(child).queue()).isEqualTo("payments");

    Set<String> routes = Set.of("deterministic");
    assertThat(journal.untilNextClaimable(request(routes, Set.of(), Optional.of(Set.of("other")))))
        .isEmpty();
    assertThat(journal.claim(request(routes, Set.of(), Optional.of(Set.of("other"))))).isEmpty();
    assertThat(journal.claim(request(routes, Set.of(), Optional.of(Set.of(Queues.DEFAULT)))))
        .extracting(c -> c.step().id())
        .containsExactly("d");
    assertThat(journal.claim(request(routes, Set.of(), Optional.of(Set.of("payments")))))
        .extracting(c -> c.lease().runId())
        .containsExactlyInAnyOrder(payments, child);
  }

  @Test
  void aQueueNameOutsideTheAllowedCharactersIsRefused() {
    assertThatThrownBy(() -> StartRun.of("k", run(command("c", "true"))).inQueue("no spaces"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aStepNoBodyAcceptsIsNotedWithTheReasonUntilAWorkerClaimsIt() {
    RunRef id = start(run(flowStep("body", "source:abc")));
    ClaimRequest refusing = request(Set.of("flow:source:other"), Set.of(), Optional.empty());
    assertThat(journal.claim(refusing)).isEmpty();
    assertThat(snapshot(id).waitingReason()).isEmpty();

    assertThat(journal.noteUnaccepted(refusing, "flow:source:", "no worker accepts this")).isOne();
    assertThat(snapshot(id).waitingReason()).contains("no worker accepts this");
    assertThat(journal.noteUnaccepted(refusing, "flow:source:", "no worker accepts this"))
        .as("a step noted at this attempt count is not noted again")
        .isZero();
    assertThat(journal.noteUnaccepted(refusing, "flow:other:", "x"))
        .as("routes outside the prefix are none of the caller's business")
        .isZero();
    ClaimRequest otherQueue =
        request(Set.of("flow:source:other"), Set.of(), Optional.of(Set.of("elsewhere")));
    assertThat(journal.noteUnaccepted(otherQueue, "flow:source:", "x")).isZero();

    ClaimedAttempt taken =
        journal.claim(request(Set.of("flow:source:abc"), Set.of(), Optional.empty())).getFirst();
    assertThat(snapshot(id).waitingReason()).as("the claim clears it").isEmpty();
    journal.complete(taken.lease(), retryableFailure());
    assertThat(snapshot(id).waitingReason())
        .as("ready again at a later attempt: the old note is stale")
        .isEmpty();
  }

  @Test
  void aStepSpecLeaseOverridesTheWorkersDefault() {
    start(run(lease(agent("a"), Duration.ofSeconds(7))));
    assertThat(claimOne().leaseMs()).isEqualTo(7000);
  }

  @Test
  void aDependentStepBecomesReadyOnlyAfterItsDependencySucceedsAndTheRunThenSucceeds() {
    RunRef id = start(run(agent("a"), dependsOn(agent("b"), "a")));
    ClaimedAttempt a = claimOne();
    assertThat(claim(5)).isEmpty();
    CompletionAck ack = journal.complete(a.lease(), ok());
    assertThat(ack.disposition()).isEqualTo(Disposition.STEP_DONE);
    assertThat(ack.runStatus()).isEqualTo(RunStatus.RUNNING);
    assertThat(stepStatus(id, "b")).isEqualTo(StepStatus.READY);
    ClaimedAttempt b = claimOne();
    assertThat(b.step().id()).isEqualTo("b");
    assertThat(journal.complete(b.lease(), ok()).runStatus()).isEqualTo(RunStatus.SUCCEEDED);
    RunSnapshot snap = snapshot(id);
    assertThat(snap.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(snap.completedAt()).isPresent();
    assertThat(snap.completionReason()).contains(RunCompletionReason.SUCCESS);
    assertThat(snap.step("a").orElseThrow().output()).contains(json("ok", "yes"));
    assertThat(types(id))
        .containsExactly(
            "run.spawned",
            "step.attempt.started",
            "step.completed",
            "step.attempt.started",
            "step.completed",
            "run.completed");
  }

  @Test
  void aClaimSkipsStepsOfRunsThatAreNotRunning() {
    RunRef id = start(run(agent("a")));
    journal.cancelRun(id, "test");
    assertThat(claim(5)).isEmpty();
  }

  // ---- heartbeat and fencing

  @Test
  void aHeartbeatExtendsTheDeadline() {
    start(run(agent("a")));
    ClaimedAttempt a = claimOne();
    elapse(Duration.ofMillis(50));
    Instant renewed = journal.heartbeat(a.lease());
    assertThat(renewed).isAfter(a.leaseDeadline());
  }

  @Test
  void aHeartbeatAfterExpiryIsRefusedAndTheJournalIsUnchanged() {
    ClaimedAttempt a = expiringAttempt(1);
    elapse(pastShortLease());
    List<JournalRecord> before = journal.entries(a.lease().runId());
    assertRefused(() -> journal.heartbeat(a.lease()), ErrorCode.LEASE_CONFLICT);
    assertThat(journal.entries(a.lease().runId())).isEqualTo(before);
  }

  @Test
  void aLateCompletionIsRefusedAndChangesNothingEvenBeforeTheReconcilerRuns() {
    ClaimedAttempt a = expiringAttempt(1);
    elapse(pastShortLease());
    List<JournalRecord> before = journal.entries(a.lease().runId());
    assertRefused(() -> journal.complete(a.lease(), ok()), ErrorCode.LEASE_CONFLICT);
    assertThat(journal.entries(a.lease().runId())).isEqualTo(before);
    assertThat(stepStatus(a.lease().runId(), "a")).isEqualTo(StepStatus.RUNNING);
  }

  @Test
  void bothEffectVerbsAfterExpiryAreRefusedAndTheJournalIsUnchanged() {
    ClaimedAttempt a = expiringAttempt(1, "/mcp/s/t");
    journal.recordEffect(a.lease(), "/mcp/s/t");
    elapse(pastShortLease());
    List<JournalRecord> before = journal.entries(a.lease().runId());
    assertRefused(() -> journal.recordEffect(a.lease(), "/mcp/s/t"), ErrorCode.LEASE_CONFLICT);
    assertRefused(
        () -> journal.confirmEffect(a.lease(), "/mcp/s/t", Optional.empty()),
        ErrorCode.LEASE_CONFLICT);
    assertThat(journal.entries(a.lease().runId())).isEqualTo(before);
  }

  @Test
  void aTokenWithTheWrongLeaseIdOrAttemptIsRefused() {
    start(run(agent("a")));
    LeaseToken t = claimOne().lease();
    LeaseToken wrongLease = new LeaseToken(t.runId(), t.stepId(), t.attempt(), "lease_forged");
    LeaseToken wrongAttempt = new LeaseToken(t.runId(), t.stepId(), 2, t.leaseId());
    assertRefused(() -> journal.heartbeat(wrongLease), ErrorCode.LEASE_CONFLICT);
    assertRefused(() -> journal.complete(wrongAttempt, ok()), ErrorCode.LEASE_CONFLICT);
    assertThat(journal.complete(t, ok()).disposition()).isEqualTo(Disposition.STEP_DONE);
  }

  @Test
  void aCompletedAttemptCannotCompleteTwice() {
    start(run(agent("a"), agent("b")));
    LeaseToken t = claimOne().lease();
    journal.complete(t, ok());
    assertRefused(() -> journal.complete(t, ok()), ErrorCode.LEASE_CONFLICT);
  }

  @Test
  void fencedVerbsOnATerminalRunAnswerRunTerminal() {
    RunRef id = start(run(agent("a", "/x")));
    LeaseToken t = claimOne().lease();
    journal.cancelRun(id, "test");
    assertRefused(() -> journal.heartbeat(t), ErrorCode.RUN_TERMINAL);
    assertRefused(() -> journal.recordEffect(t, "/x"), ErrorCode.RUN_TERMINAL);
    assertRefused(() -> journal.complete(t, ok()), ErrorCode.RUN_TERMINAL);
  }

  @Test
  void fencedVerbsOnAnUnknownRunAnswerRunNotFound() {
    LeaseToken t = new LeaseToken(new RunRef("nope"), "a", 1, "lease_x");
    assertRefused(() -> journal.heartbeat(t), ErrorCode.RUN_NOT_FOUND);
  }

  // ---- effects

  @Test
  void recordThenConfirmThenCompleteListsTheEffectInTheCompletion() {
    RunRef id = start(run(agent("a", "/mcp/s/t")));
    ClaimedAttempt a = claimOne();
    EffectElection e = journal.recordEffect(a.lease(), "/mcp/s/t");
    assertThat(e).isEqualTo(new EffectElection(a.idempotencyKey(), false, false, Optional.empty()));
    journal.confirmEffect(a.lease(), "/mcp/s/t", Optional.of(json("out", "1")));
    journal.complete(a.lease(), ok());
    JournalEntry.StepCompleted done = entriesOf(id, JournalEntry.StepCompleted.class).getFirst();
    assertThat(done.effects())
        .containsExactly(new JournalEntry.EffectRef("/mcp/s/t", a.idempotencyKey()));
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class).getFirst().output())
        .contains(json("out", "1"));
  }

  // ---- many effects on one step: listed in the order they were elected (a body's memo positions)

  private static final int MEMOS = 10;

  /** A step of {@code iterations} that has recorded and confirmed memos 1..10, in that order. */
  private ClaimedAttempt tenMemos(int iterations) {
    start(run(iterations(agent("a", "/memo/*"), iterations)));
    ClaimedAttempt a = claimOne();
    for (int i = 1; i <= MEMOS; i++) {
      journal.recordConfirmedEffect(a.lease(), "/memo/" + i, Optional.of(json("v", "" + i)));
    }
    return a;
  }

  private static List<String> memoPaths() {
    return java.util.stream.IntStream.rangeClosed(1, MEMOS).mapToObj(i -> "/memo/" + i).toList();
  }

  private List<String> completedEffectPaths(RunRef id) {
    return entriesOf(id, JournalEntry.StepCompleted.class).getFirst().effects().stream()
        .map(JournalEntry.EffectRef::surfacePath)
        .toList();
  }

  @Test
  void tenMemosOfASucceededStepAreListedInPositionOrder() {
    ClaimedAttempt a = tenMemos(1);
    journal.complete(a.lease(), ok());
    RunRef id = a.lease().runId();
    assertThat(completedEffectPaths(id)).containsExactlyElementsOf(memoPaths());
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class))
        .extracting(JournalEntry.EffectConfirmed::surfacePath)
        .containsExactlyElementsOf(memoPaths());
  }

  @Test
  void tenMemosOfAFailedAttemptAreListedInPositionOrder() {
    ClaimedAttempt a = tenMemos(2);
    assertThat(journal.complete(a.lease(), retryableFailure()).disposition())
        .isEqualTo(Disposition.RETRY);
    assertThat(completedEffectPaths(a.lease().runId())).containsExactlyElementsOf(memoPaths());
  }

  @Test
  void tenEffectsEndedByConfirmAndCompleteAreListedInPositionOrder() {
    RunRef id = start(run(agent("a", "/memo/*")));
    ClaimedAttempt a = claimOne();
    for (int i = 1; i < MEMOS; i++) {
      journal.recordConfirmedEffect(a.lease(), "/memo/" + i, Optional.empty());
    }
    journal.recordEffect(a.lease(), "/memo/" + MEMOS);
    journal.confirmAndComplete(a.lease(), "/memo/" + MEMOS, Optional.empty(), ok());
    assertThat(completedEffectPaths(id)).containsExactlyElementsOf(memoPaths());
  }

  @Test
  void tenEffectsRecordedThenConfirmedOneByOneAreListedInTheOrderTheyWereRecorded() {
    RunRef id = start(run(agent("a", "/memo/*")));
    ClaimedAttempt a = claimOne();
    for (String path : memoPaths()) {
      journal.recordEffect(a.lease(), path);
    }
    for (String path : memoPaths().reversed()) {
      journal.confirmEffect(a.lease(), path, Optional.empty());
    }
    journal.complete(a.lease(), ok());
    assertThat(completedEffectPaths(id)).containsExactlyElementsOf(memoPaths());
  }

  @Test
  void recordingTwiceInOneAttemptIsIdempotentAndJournaledOnce() {
    RunRef id = start(run(agent("a", "/x")));
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), "/x");
    EffectElection again = journal.recordEffect(a.lease(), "/x");
    assertThat(again.deduped()).isFalse();
    assertThat(again.takenOver()).isFalse();
    journal.confirmEffect(a.lease(), "/x", Optional.empty());
    journal.confirmEffect(a.lease(), "/x", Optional.empty());
    assertThat(entriesOf(id, JournalEntry.EffectRecorded.class)).hasSize(1);
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class)).hasSize(1);
  }

  // ---- a batch of memos: in order, as one call each would, refused at the first refused memo

  private static List<MemoEffect> memoBatch(int from, int to, String value) {
    return java.util.stream.IntStream.rangeClosed(from, to)
        .mapToObj(i -> new MemoEffect("/memo/" + i, Optional.of(json("v", value + i))))
        .toList();
  }

  @Test
  void aBatchOfMemosIsJournaledInOrderAndAnsweredAsEachMemoAlone() {
    RunRef id = start(run(agent("a", "/memo/*")));
    ClaimedAttempt a = claimOne();
    journal.recordConfirmedEffect(a.lease(), "/memo/1", Optional.of(json("v", "first")));
    List<EffectElection> answers = journal.recordConfirmedEffects(a.lease(), memoBatch(1, 5, "b"));

    assertThat(answers).hasSize(5);
    assertThat(answers.getFirst().deduped()).isTrue();
    assertThat(answers.getFirst().confirmedOutput()).contains(json("v", "first"));
    assertThat(answers.subList(1, 5)).allMatch(e -> !e.deduped() && !e.takenOver());
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class))
        .extracting(JournalEntry.EffectConfirmed::surfacePath)
        .containsExactly("/memo/1", "/memo/2", "/memo/3", "/memo/4", "/memo/5");
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class).get(3).output())
        .contains(json("v", "b4"));
    journal.complete(a.lease(), ok());
    assertThat(completedEffectPaths(id))
        .containsExactly("/memo/1", "/memo/2", "/memo/3", "/memo/4", "/memo/5");
  }

  @Test
  void aBatchOfMemosAfterExpiryOrOnACancelledRunIsRefusedAndWritesNothing() {
    ClaimedAttempt a = expiringAttempt(1, "/memo/*");
    elapse(pastShortLease());
    List<JournalRecord> before = journal.entries(a.lease().runId());
    assertRefused(
        () -> journal.recordConfirmedEffects(a.lease(), memoBatch(1, 3, "x")),
        ErrorCode.LEASE_CONFLICT);
    assertThat(journal.entries(a.lease().runId())).isEqualTo(before);

    RunRef id = start(run(agent("b", "/memo/*")));
    ClaimedAttempt b = claimOne();
    journal.cancelRun(id, "test");
    List<JournalRecord> cancelled = journal.entries(id);
    assertRefused(
        () -> journal.recordConfirmedEffects(b.lease(), memoBatch(1, 3, "x")),
        ErrorCode.RUN_TERMINAL);
    assertThat(journal.entries(id)).isEqualTo(cancelled);
  }

  @Test
  void aBatchOfMemosStopsAtAnUndeclaredSurfaceWritingNothingFromThere() {
    RunRef id = start(run(agent("a", "/memo/*")));
    ClaimedAttempt a = claimOne();
    List<MemoEffect> batch = new java.util.ArrayList<>(memoBatch(1, 2, "x"));
    batch.add(new MemoEffect("/undeclared", Optional.empty()));
    batch.addAll(memoBatch(3, 4, "x"));
    assertRefused(
        () -> journal.recordConfirmedEffects(a.lease(), batch), ErrorCode.EFFECT_NOT_DECLARED);
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class))
        .extracting(JournalEntry.EffectConfirmed::surfacePath)
        .containsExactly("/memo/1", "/memo/2");
  }

  @Test
  void aSuccessJournalsTheMemosItCarriesBeforeItsEndAndListsThemAmongItsEffects() {
    RunRef id = start(run(agent("a", "/memo/*")));
    ClaimedAttempt a = claimOne();
    journal.recordConfirmedEffects(a.lease(), memoBatch(1, 2, "sent"));
    CompletionAck ack =
        journal.complete(
            a.lease(), new StepOutcome.Succeeded(json("ok", "yes"), memoBatch(3, 5, "carried")));

    assertThat(ack.runStatus()).isEqualTo(RunStatus.SUCCEEDED);
    List<String> types =
        journal.entries(id).stream()
            .map(r -> r.entry().type())
            .filter(t -> t.startsWith("effect.") || t.equals("step.completed"))
            .toList();
    assertThat(types)
        .containsExactly(
            "effect.recorded",
            "effect.confirmed",
            "effect.recorded",
            "effect.confirmed",
            "effect.recorded",
            "effect.confirmed",
            "effect.recorded",
            "effect.confirmed",
            "effect.recorded",
            "effect.confirmed",
            "step.completed");
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class).get(4).output())
        .contains(json("v", "carried5"));
    assertThat(completedEffectPaths(id))
        .containsExactly("/memo/1", "/memo/2", "/memo/3", "/memo/4", "/memo/5");
  }

  @Test
  void aSuccessCarryingAMemoWhoseElectionHoldsKeepsTheConfirmedOneAndJournalsTheRest() {
    RunRef id = start(run(agent("a", "/memo/*")));
    ClaimedAttempt a = claimOne();
    journal.recordConfirmedEffect(a.lease(), "/memo/1", Optional.of(json("v", "first")));
    journal.complete(
        a.lease(), new StepOutcome.Succeeded(json("ok", "yes"), memoBatch(1, 2, "again")));

    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class))
        .extracting(JournalEntry.EffectConfirmed::surfacePath, JournalEntry.EffectConfirmed::output)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("/memo/1", Optional.of(json("v", "first"))),
            org.assertj.core.groups.Tuple.tuple("/memo/2", Optional.of(json("v", "again2"))));
    assertThat(journal.run(id).orElseThrow().status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  @Test
  void aSuccessCarryingMemosAfterExpiryIsRefusedAndWritesNothing() {
    ClaimedAttempt a = expiringAttempt(1, "/memo/*");
    elapse(pastShortLease());
    List<JournalRecord> before = journal.entries(a.lease().runId());
    assertRefused(
        () ->
            journal.complete(
                a.lease(), new StepOutcome.Succeeded(json("ok", "yes"), memoBatch(1, 3, "x"))),
        ErrorCode.LEASE_CONFLICT);
    assertThat(journal.entries(a.lease().runId())).isEqualTo(before);
  }

  @Test
  void aSuccessCarryingAnUndeclaredMemoIsRefusedAndTheStepStaysRunning() {
    RunRef id = start(run(agent("a", "/memo/*")));
    ClaimedAttempt a = claimOne();
    List<MemoEffect> memos = new java.util.ArrayList<>(memoBatch(1, 1, "x"));
    memos.add(new MemoEffect("/undeclared", Optional.empty()));
    assertRefused(
        () -> journal.complete(a.lease(), new StepOutcome.Succeeded(json("ok", "yes"), memos)),
        ErrorCode.EFFECT_NOT_DECLARED);
    assertThat(journal.run(id).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    assertThat(entriesOf(id, JournalEntry.StepCompleted.class)).isEmpty();
  }

  @Test
  void anUndeclaredSurfaceIsRefused() {
    start(run(agent("a", "/mcp/s/t")));
    ClaimedAttempt a = claimOne();
    assertRefused(
        () -> journal.recordEffect(a.lease(), "/mcp/s/other"), ErrorCode.EFFECT_NOT_DECLARED);
  }

  @Test
  void aDeclaredPrefixCoversEveryPathBelowIt() {
    RunRef id = start(run(agent("a", "/memo/*")));
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), "/memo/1");
    journal.recordEffect(a.lease(), "/memo/2");
    assertRefused(() -> journal.recordEffect(a.lease(), "/memo/"), ErrorCode.EFFECT_NOT_DECLARED);
    assertRefused(() -> journal.recordEffect(a.lease(), "/memox"), ErrorCode.EFFECT_NOT_DECLARED);
    assertThat(entriesOf(id, JournalEntry.EffectRecorded.class)).hasSize(2);
  }

  @Test
  void aNonAgentStepCannotRecordEffects() {
    start(run(command("c", "true")));
    ClaimedAttempt a = claimOne();
    assertRefused(() -> journal.recordEffect(a.lease(), "/x"), ErrorCode.EFFECT_NOT_DECLARED);
  }

  @Test
  void anLlmStepRecordsItsModelCallOnItsOwnSurfaceAndNowhereElse() {
    RunRef id = start(run(llm("l")));
    ClaimedAttempt a = claim(1, StepKind.LLM).getFirst();
    assertRefused(() -> journal.recordEffect(a.lease(), "/memo/1"), ErrorCode.EFFECT_NOT_DECLARED);
    EffectElection e = journal.recordEffect(a.lease(), StepBody.Llm.SURFACE);
    assertThat(e.deduped()).isFalse();
    journal.confirmEffect(a.lease(), StepBody.Llm.SURFACE, Optional.of(json("output", "hi")));
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class)).hasSize(1);
  }

  @Test
  void confirmingWithoutARecordIsRefused() {
    start(run(agent("a", "/x")));
    ClaimedAttempt a = claimOne();
    assertRefused(
        () -> journal.confirmEffect(a.lease(), "/x", Optional.empty()),
        ErrorCode.EFFECT_NOT_RECORDED);
  }

  @Test
  void aSuccessWhileHoldingAnUnconfirmedElectionIsRefused() {
    RunRef id = start(run(agent("a", "/x")));
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), "/x");
    assertRefused(() -> journal.complete(a.lease(), ok()), ErrorCode.EFFECT_UNCONFIRMED);
    assertThat(stepStatus(id, "a")).isEqualTo(StepStatus.RUNNING);
    assertThat(entriesOf(id, JournalEntry.StepCompleted.class)).isEmpty();
  }

  @Test
  void aConfirmedElectionDedupesTheNextAttemptWithItsOutput() {
    RunRef id = start(run(iterations(agent("a", "/x"), 2)));
    ClaimedAttempt a1 = claimOne();
    journal.recordEffect(a1.lease(), "/x");
    journal.confirmEffect(a1.lease(), "/x", Optional.of(json("paid", "42")));
    journal.complete(a1.lease(), retryableFailure());
    elapse(pastShortLease());
    ClaimedAttempt a2 = claimOne();
    assertThat(a2.lease().attempt()).isEqualTo(2);
    EffectElection e = journal.recordEffect(a2.lease(), "/x");
    assertThat(e.deduped()).isTrue();
    assertThat(e.confirmedOutput()).contains(json("paid", "42"));
    assertThat(e.idempotencyKey()).isEqualTo(a1.idempotencyKey());
    assertThat(entriesOf(id, JournalEntry.EffectRecorded.class)).hasSize(1);
  }

  @Test
  void recordConfirmedEffectJournalsTheRecordAndTheConfirmationAndDedupesTheNextAttempt() {
    RunRef id = start(run(iterations(agent("a", "/memo/*"), 2)));
    ClaimedAttempt a1 = claimOne();
    EffectElection e =
        journal.recordConfirmedEffect(a1.lease(), "/memo/1", Optional.of(json("v", "7")));
    assertThat(e)
        .isEqualTo(new EffectElection(a1.idempotencyKey(), false, false, Optional.empty()));
    assertThat(entriesOf(id, JournalEntry.EffectRecorded.class)).hasSize(1);
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class).getFirst().output())
        .contains(json("v", "7"));
    journal.complete(a1.lease(), retryableFailure());
    elapse(pastShortLease());
    ClaimedAttempt a2 = claimOne();
    EffectElection again = journal.recordEffect(a2.lease(), "/memo/1");
    assertThat(again.deduped()).isTrue();
    assertThat(again.confirmedOutput()).contains(json("v", "7"));
  }

  @Test
  void recordConfirmedEffectOnAConfirmedEffectKeepsTheFirstOutputAndWritesNothing() {
    RunRef id = start(run(agent("a", "/memo/*")));
    ClaimedAttempt a = claimOne();
    journal.recordConfirmedEffect(a.lease(), "/memo/1", Optional.of(json("v", "first")));
    List<JournalRecord> before = journal.entries(id);
    EffectElection again =
        journal.recordConfirmedEffect(a.lease(), "/memo/1", Optional.of(json("v", "second")));
    assertThat(again.deduped()).isTrue();
    assertThat(again.confirmedOutput()).contains(json("v", "first"));
    assertThat(journal.entries(id)).isEqualTo(before);
    assertThat(journal.complete(a.lease(), ok()).disposition()).isEqualTo(Disposition.STEP_DONE);
  }

  @Test
  void recordConfirmedEffectAfterExpiryOrOnAnUndeclaredSurfaceWritesNothing() {
    ClaimedAttempt a = expiringAttempt(1, "/memo/*");
    RunRef id = a.lease().runId();
    List<JournalRecord> before = journal.entries(id);
    assertRefused(
        () -> journal.recordConfirmedEffect(a.lease(), "/other", Optional.empty()),
        ErrorCode.EFFECT_NOT_DECLARED);
    elapse(pastShortLease());
    assertRefused(
        () -> journal.recordConfirmedEffect(a.lease(), "/memo/1", Optional.empty()),
        ErrorCode.LEASE_CONFLICT);
    assertThat(journal.entries(id)).isEqualTo(before);
  }

  @Test
  void recordConfirmedEffectTakesOverAnElectionLeftUnconfirmedByADeadAttempt() {
    ClaimedAttempt a1 = expiringAttempt(2, "/memo/*");
    RunRef id = a1.lease().runId();
    journal.recordEffect(a1.lease(), "/memo/1");
    elapse(pastShortLease());
    assertThat(journal.expireLeases()).hasSize(1);
    elapse(pastShortLease());
    ClaimedAttempt a2 = claimOne();
    EffectElection e =
        journal.recordConfirmedEffect(a2.lease(), "/memo/1", Optional.of(json("v", "2")));
    assertThat(e.takenOver()).isTrue();
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class)).hasSize(1);
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class).getFirst().attempt()).isEqualTo(2);
    assertThat(journal.complete(a2.lease(), ok()).disposition()).isEqualTo(Disposition.STEP_DONE);
  }

  @Test
  void anUnconfirmedElectionLeftByADeadAttemptIsTakenOverByTheNext() {
    ClaimedAttempt a1 = expiringAttempt(2, "/x");
    RunRef id = a1.lease().runId();
    journal.recordEffect(a1.lease(), "/x");
    elapse(pastShortLease());
    assertThat(journal.expireLeases()).hasSize(1);
    elapse(pastShortLease());
    ClaimedAttempt a2 = claimOne();
    EffectElection e = journal.recordEffect(a2.lease(), "/x");
    assertThat(e.takenOver()).isTrue();
    assertThat(e.deduped()).isFalse();
    assertThat(e.idempotencyKey()).isEqualTo(a1.idempotencyKey());
    List<JournalEntry.EffectRecorded> recs = entriesOf(id, JournalEntry.EffectRecorded.class);
    assertThat(recs)
        .extracting(JournalEntry.EffectRecorded::takenOver)
        .containsExactly(false, true);
    assertRefused(
        () -> journal.confirmEffect(a1.lease(), "/x", Optional.empty()), ErrorCode.LEASE_CONFLICT);
    journal.confirmEffect(a2.lease(), "/x", Optional.empty());
    journal.complete(a2.lease(), ok());
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  // ---- failures, retries, expiry

  @Test
  void aRetryableFailureSchedulesADurableBackoff() {
    BackoffPolicy slow = new BackoffPolicy(60_000, 60_000, 1.0, 0);
    RunRef id = start(run(Specs.retry(iterations(agent("a"), 3), slow)));
    ClaimedAttempt a = claimOne();
    CompletionAck ack = journal.complete(a.lease(), retryableFailure());
    assertThat(ack.disposition()).isEqualTo(Disposition.RETRY);
    assertThat(ack.nextAttemptAt()).isPresent();
    assertThat(ack.nextAttemptAt().get()).isAfter(a.leaseDeadline().minus(LONG_LEASE));
    assertThat(stepStatus(id, "a")).isEqualTo(StepStatus.READY);
    assertThat(claim(5)).as("not claimable during backoff").isEmpty();
    JournalEntry.StepCompleted c = entriesOf(id, JournalEntry.StepCompleted.class).getFirst();
    assertThat(c.reason()).isEqualTo(CompletionReason.WORKER_ERROR);
    assertThat(c.disposition()).isEqualTo(Disposition.RETRY);
    assertThat(c.nextAttemptAt()).isEqualTo(ack.nextAttemptAt());
    assertThat(c.trajectoryTail()).contains(json("why", "boom"));
  }

  @Test
  void aRetriedStepIsClaimableAgainOnceItsBackoffHasPassed() {
    RunRef id = start(run(iterations(agent("a"), 2)));
    journal.complete(claimOne().lease(), retryableFailure());
    elapse(pastShortLease());
    ClaimedAttempt again = claimOne();
    assertThat(again.lease().attempt()).isEqualTo(2);
    assertThat(again.lease().leaseId()).isNotEqualTo(Keys.leaseId(id, "a", 1));
  }

  @Test
  void aRetryableFailureOnTheLastIterationFailsTheRunWithRetriesExhausted() {
    RunRef id = start(run(agent("a"), agent("b")));
    ClaimedAttempt a =
        claim(5).stream().filter(c -> c.step().id().equals("a")).findFirst().orElseThrow();
    CompletionAck ack = journal.complete(a.lease(), retryableFailure());
    assertThat(ack.reason()).isEqualTo(CompletionReason.RETRIES_EXHAUSTED);
    assertThat(ack.runStatus()).isEqualTo(RunStatus.FAILED);
    List<JournalEntry.RunCompleted> done = entriesOf(id, JournalEntry.RunCompleted.class);
    assertThat(done).hasSize(1);
    assertThat(done.getFirst().reason()).isEqualTo(RunCompletionReason.STEP_FAILED);
    assertThat(done.getFirst().failedStepId()).contains("a");
  }

  @Test
  void aNonRetryableFailureFailsTheRunWithItsOwnReason() {
    RunRef id = start(run(iterations(agent("a"), 5)));
    CompletionAck ack =
        journal.complete(
            claimOne().lease(),
            new StepOutcome.Failed(CompletionReason.TIMEOUT, json("t", "x"), false));
    assertThat(ack.reason()).isEqualTo(CompletionReason.TIMEOUT);
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.FAILED);
    assertThat(snapshot(id).step("a").orElseThrow().lastReason())
        .contains(CompletionReason.TIMEOUT);
  }

  @Test
  void anExpiredLeaseIsJournaledLeaseExpiredAndRetriedWithDurableBackoff() {
    ClaimedAttempt a = expiringAttempt(2);
    RunRef id = a.lease().runId();
    assertThat(journal.expireLeases()).as("nothing expired yet").isEmpty();
    elapse(pastShortLease());
    List<ExpiredAttempt> expired = journal.expireLeases();
    assertThat(expired).containsExactly(new ExpiredAttempt(a.lease(), Disposition.RETRY));
    JournalEntry.StepCompleted c = entriesOf(id, JournalEntry.StepCompleted.class).getFirst();
    assertThat(c.reason()).isEqualTo(CompletionReason.LEASE_EXPIRED);
    assertThat(c.disposition()).isEqualTo(Disposition.RETRY);
    assertThat(c.nextAttemptAt()).isPresent();
    elapse(pastShortLease());
    ClaimedAttempt next = claimOne();
    assertThat(next.lease().attempt()).isEqualTo(2);
    journal.complete(next.lease(), ok());
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  @Test
  void anExpiredLeaseOnTheLastIterationFailsTheRunWithRetriesExhausted() {
    ClaimedAttempt a = expiringAttempt(1);
    elapse(pastShortLease());
    assertThat(journal.expireLeases())
        .containsExactly(new ExpiredAttempt(a.lease(), Disposition.STEP_DONE));
    RunSnapshot snap = snapshot(a.lease().runId());
    assertThat(snap.status()).isEqualTo(RunStatus.FAILED);
    assertThat(snap.step("a").orElseThrow().lastReason())
        .contains(CompletionReason.RETRIES_EXHAUSTED);
  }

  @Test
  void expiredAttemptsAreHandledMostOverdueFirst() {
    RunRef later = start(run(lease(agent("a"), shortLease().multipliedBy(2))));
    ClaimedAttempt laterAttempt = claimOne();
    RunRef sooner = start(run(lease(agent("a"), shortLease())));
    ClaimedAttempt soonerAttempt = claimOne();
    elapse(shortLease().multipliedBy(2).plus(pastShortLease()));
    assertThat(journal.expireLeases())
        .containsExactly(
            new ExpiredAttempt(soonerAttempt.lease(), Disposition.STEP_DONE),
            new ExpiredAttempt(laterAttempt.lease(), Disposition.STEP_DONE));
    assertThat(entriesOf(sooner, JournalEntry.StepCompleted.class)).hasSize(1);
    assertThat(entriesOf(later, JournalEntry.StepCompleted.class)).hasSize(1);
  }

  @Test
  void expiringTwiceJournalsEachExpiredAttemptOnce() {
    ClaimedAttempt a = expiringAttempt(3);
    elapse(pastShortLease());
    assertThat(journal.expireLeases()).hasSize(1);
    assertThat(journal.expireLeases()).isEmpty();
    assertThat(entriesOf(a.lease().runId(), JournalEntry.StepCompleted.class)).hasSize(1);
  }

  @Test
  void concurrentReconcilersJournalEachExpiredAttemptOnce() throws Exception {
    ClaimedAttempt a = expiringAttempt(3);
    elapse(pastShortLease());
    List<CompletableFuture<List<ExpiredAttempt>>> runs =
        List.of(
            CompletableFuture.supplyAsync(journal::expireLeases),
            CompletableFuture.supplyAsync(journal::expireLeases),
            CompletableFuture.supplyAsync(journal::expireLeases));
    int total = 0;
    for (CompletableFuture<List<ExpiredAttempt>> f : runs) {
      total += f.get(30, TimeUnit.SECONDS).size();
    }
    assertThat(total).isEqualTo(1);
    assertThat(entriesOf(a.lease().runId(), JournalEntry.StepCompleted.class)).hasSize(1);
  }

  // ---- an effect of unknown outcome on the last attempt

  /** The step's last {@code step.completed}. */
  private JournalEntry.StepCompleted lastCompletion(RunRef id) {
    return entriesOf(id, JournalEntry.StepCompleted.class).getLast();
  }

  private static final String CALL_SURFACE = "/mcp/ledger/charge";

  /** A call run of {@code iterations} attempts (short leases), under {@code policy} if given. */
  private RunRef callRun(int iterations, Optional<McpCallInstruction.OnUnknownOutcome> policy) {
    return start(
        run(
            lease(
                iterations(
                    Specs.mcpCall("call", "ledger", "charge", json("cents", "5"), policy),
                    iterations),
                shortLease())));
  }

  @Test
  void aRetryableFailureOnTheLastAttemptOfAStepWithAnUnconfirmedEffectParksItsOutcomeUnknown() {
    RunRef id = callRun(2, Optional.empty());
    ClaimedAttempt first = claimOne();
    journal.recordEffect(first.lease(), CALL_SURFACE);
    journal.complete(first.lease(), retryableFailure());
    elapse(pastShortLease());
    ClaimedAttempt last = claimOne();
    // The take-over of a call that may be sent again: sent with the same key, failed again.
    journal.recordEffect(last.lease(), CALL_SURFACE);
    CompletionAck ack =
        journal.complete(
            last.lease(),
            new StepOutcome.Failed(
                CompletionReason.WORKER_ERROR,
                JSON.objectNode()
                    .put("type", "mcp")
                    .put("diagnostic", "mcp_disconnected")
                    .put("message", "connection is disconnected"),
                true));

    assertThat(ack.disposition()).isEqualTo(Disposition.PARK);
    assertThat(ack.runStatus()).isEqualTo(RunStatus.PARKED);
    assertThat(stepStatus(id, "call")).isEqualTo(StepStatus.PARKED);
    JournalEntry.StepCompleted c = lastCompletion(id);
    assertThat(c.reason()).isEqualTo(CompletionReason.WORKER_ERROR);
    assertThat(c.disposition()).isEqualTo(Disposition.PARK);
    assertThat(c.nextAttemptAt()).isEmpty();
    JsonNode tail = c.trajectoryTail().orElseThrow();
    assertThat(tail.path("diagnostic").asText()).isEqualTo("effect_outcome_unknown");
    assertThat(tail.path("lastDiagnostic").asText()).isEqualTo("mcp_disconnected");
    assertThat(tail.path("type").asText()).isEqualTo("mcp");
    assertThat(tail.path("idempotencyKey").asText()).isEqualTo(Keys.idempotencyKey(id, "call"));
    assertThat(tail.path("message").asText())
        .contains("may have performed it")
        .contains("connection is disconnected")
        .contains("flows runs resolve " + id.value() + " call --performed");
    assertThat(types(id)).endsWith("step.completed").doesNotContain("run.completed");

    RunSnapshot resolved = journal.resolveStep(id, "call", Optional.of(json("ok", "1")), "ops");
    assertThat(resolved.status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  @Test
  void theLastAttemptsLeaseRunningOutOnAStepWithAnUnconfirmedEffectParksItsOutcomeUnknown() {
    RunRef id = callRun(1, Optional.empty());
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), CALL_SURFACE);
    elapse(pastShortLease());

    assertThat(journal.expireLeases())
        .containsExactly(new ExpiredAttempt(a.lease(), Disposition.PARK));
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.PARKED);
    assertThat(stepStatus(id, "call")).isEqualTo(StepStatus.PARKED);
    JournalEntry.StepCompleted c = lastCompletion(id);
    assertThat(c.reason()).isEqualTo(CompletionReason.LEASE_EXPIRED);
    assertThat(c.disposition()).isEqualTo(Disposition.PARK);
    assertThat(c.effects()).isEmpty();
    JsonNode tail = c.trajectoryTail().orElseThrow();
    assertThat(tail.path("diagnostic").asText()).isEqualTo("effect_outcome_unknown");
    assertThat(tail.path("lastDiagnostic").asText()).isEqualTo("lease_expired");
    assertThat(tail.path("server").asText()).isEqualTo("ledger");
    assertThat(tail.path("message").asText()).contains("flows runs resolve " + id.value());
    assertThat(types(id)).doesNotContain("run.completed");

    // Resumed, the step gets one more attempt: it takes the election over.
    journal.resumeRun(id, "ops");
    elapse(pastShortLease());
    ClaimedAttempt again = claimOne();
    assertThat(journal.recordEffect(again.lease(), CALL_SURFACE).takenOver()).isTrue();
  }

  @Test
  void aStepWithNoOpenElectionStillFailsRetriesExhausted() {
    RunRef confirmed = callRun(1, Optional.empty());
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), CALL_SURFACE);
    journal.confirmEffect(a.lease(), CALL_SURFACE, Optional.of(json("ok", "1")));
    assertThat(journal.complete(a.lease(), retryableFailure()).reason())
        .isEqualTo(CompletionReason.RETRIES_EXHAUSTED);
    assertThat(snapshot(confirmed).status()).isEqualTo(RunStatus.FAILED);

    RunRef none = callRun(1, Optional.empty());
    ClaimedAttempt b = claimOne();
    elapse(pastShortLease());
    assertThat(journal.expireLeases())
        .containsExactly(new ExpiredAttempt(b.lease(), Disposition.STEP_DONE));
    assertThat(snapshot(none).status()).isEqualTo(RunStatus.FAILED);
    assertThat(lastCompletion(none).reason()).isEqualTo(CompletionReason.RETRIES_EXHAUSTED);
    assertThat(lastCompletion(none).trajectoryTail()).isEmpty();
  }

  @Test
  void aCallWhosePolicyFailsOnUnknownOutcomeFailsEffectOutcomeUnknownOnItsLastAttempt() {
    Optional<McpCallInstruction.OnUnknownOutcome> fail =
        Optional.of(McpCallInstruction.OnUnknownOutcome.FAIL);
    RunRef reported = callRun(1, fail);
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), CALL_SURFACE);
    CompletionAck ack = journal.complete(a.lease(), retryableFailure());
    assertThat(ack.disposition()).isEqualTo(Disposition.STEP_DONE);
    assertThat(ack.runStatus()).isEqualTo(RunStatus.FAILED);
    JsonNode tail = lastCompletion(reported).trajectoryTail().orElseThrow();
    assertThat(tail.path("diagnostic").asText()).isEqualTo("effect_outcome_unknown");
    assertThat(tail.path("message").asText()).contains("onUnknownOutcome fail");

    RunRef expired = callRun(1, fail);
    ClaimedAttempt b = claimOne();
    journal.recordEffect(b.lease(), CALL_SURFACE);
    elapse(pastShortLease());
    assertThat(journal.expireLeases())
        .containsExactly(new ExpiredAttempt(b.lease(), Disposition.STEP_DONE));
    assertThat(snapshot(expired).status()).isEqualTo(RunStatus.FAILED);
    // The journal's own end, with a tail: its reason says it was an expiry.
    assertThat(lastCompletion(expired).reason()).isEqualTo(CompletionReason.LEASE_EXPIRED);
    assertThat(lastCompletion(expired).trajectoryTail().orElseThrow().path("diagnostic").asText())
        .isEqualTo("effect_outcome_unknown");
  }

  /** A failure of an MCP call with {@code diagnostic}, not retried. */
  private static StepOutcome notRetried(String diagnostic) {
    return new StepOutcome.Failed(
        CompletionReason.WORKER_ERROR,
        JSON.objectNode()
            .put("type", "mcp")
            .put("diagnostic", diagnostic)
            .put("message", "the " + diagnostic + " failure"),
        false);
  }

  @Test
  void aTimeoutThatIsNotRetriedOnAStepWithAnUnconfirmedEffectParksItsOutcomeUnknown() {
    RunRef id = callRun(3, Optional.empty());
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), CALL_SURFACE);
    CompletionAck ack = journal.complete(a.lease(), notRetried("timeout"));

    assertThat(ack.disposition()).isEqualTo(Disposition.PARK);
    assertThat(ack.runStatus()).isEqualTo(RunStatus.PARKED);
    assertThat(stepStatus(id, "call")).isEqualTo(StepStatus.PARKED);
    JournalEntry.StepCompleted c = lastCompletion(id);
    assertThat(c.reason()).isEqualTo(CompletionReason.WORKER_ERROR);
    assertThat(c.nextAttemptAt()).isEmpty();
    JsonNode tail = c.trajectoryTail().orElseThrow();
    assertThat(tail.path("diagnostic").asText()).isEqualTo("effect_outcome_unknown");
    assertThat(tail.path("lastDiagnostic").asText()).isEqualTo("timeout");
    assertThat(tail.path("surfacePath").asText()).isEqualTo(CALL_SURFACE);
    assertThat(tail.path("idempotencyKey").asText()).isEqualTo(Keys.idempotencyKey(id, "call"));
    assertThat(tail.path("message").asText())
        .contains("may have performed it", "the timeout failure")
        .contains("flows runs resolve " + id.value() + " call --performed");
    assertThat(types(id)).doesNotContain("run.completed");

    RunSnapshot resolved = journal.resolveStep(id, "call", Optional.of(json("ok", "1")), "ops");
    assertThat(resolved.status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  @Test
  void aFailureThatIsNotRetriedUnderAFailPolicyFailsEffectOutcomeUnknown() {
    RunRef id = callRun(3, Optional.of(McpCallInstruction.OnUnknownOutcome.FAIL));
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), CALL_SURFACE);
    CompletionAck ack = journal.complete(a.lease(), notRetried("mcp_result_unavailable"));

    assertThat(ack.disposition()).isEqualTo(Disposition.STEP_DONE);
    assertThat(ack.runStatus()).isEqualTo(RunStatus.FAILED);
    JsonNode tail = lastCompletion(id).trajectoryTail().orElseThrow();
    assertThat(tail.path("diagnostic").asText()).isEqualTo("effect_outcome_unknown");
    assertThat(tail.path("lastDiagnostic").asText()).isEqualTo("mcp_result_unavailable");
    assertThat(tail.path("message").asText()).contains("onUnknownOutcome fail");
  }

  @Test
  void aFailureThatSaysTheCallWasNotPerformedStillFailsWithItsOwnDiagnostic() {
    for (String known : List.of("spawn_failed", "mcp_unknown_tool", "auth_failed")) {
      RunRef id = callRun(3, Optional.empty());
      ClaimedAttempt a = claimOne();
      journal.recordEffect(a.lease(), CALL_SURFACE);
      CompletionAck ack = journal.complete(a.lease(), notRetried(known));

      assertThat(ack.disposition()).as(known).isEqualTo(Disposition.STEP_DONE);
      assertThat(ack.runStatus()).as(known).isEqualTo(RunStatus.FAILED);
      assertThat(lastCompletion(id).reason()).isEqualTo(CompletionReason.WORKER_ERROR);
      assertThat(lastCompletion(id).trajectoryTail().orElseThrow().path("diagnostic").asText())
          .isEqualTo(known);
    }
  }

  @Test
  void aTimeoutThatIsNotRetriedOnAStepThatIsNotAnMcpCallStillFailsTimeout() {
    RunRef id = start(run(lease(agent("a", "/x"), shortLease())));
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), "/x");
    CompletionAck ack = journal.complete(a.lease(), notRetried("timeout"));

    assertThat(ack.runStatus()).isEqualTo(RunStatus.FAILED);
    assertThat(lastCompletion(id).trajectoryTail().orElseThrow().path("diagnostic").asText())
        .isEqualTo("timeout");
  }

  // ---- park, resolve, resume

  @Test
  void aParkedOutcomeParksTheStepAndTheRun() {
    RunRef id = start(run(agent("a", "/x")));
    ClaimedAttempt a = claimOne();
    CompletionAck ack =
        journal.complete(
            a.lease(),
            new StepOutcome.Parked(
                CompletionReason.WORKER_ERROR, ErrorCode.EFFECT_OUTCOME_UNKNOWN, json("c", "u")));
    assertThat(ack.disposition()).isEqualTo(Disposition.PARK);
    assertThat(ack.runStatus()).isEqualTo(RunStatus.PARKED);
    assertThat(stepStatus(id, "a")).isEqualTo(StepStatus.PARKED);
    assertThat(claim(5)).isEmpty();
  }

  /** Ends the attempt as a take-over of a call that may have been sent ends: parked. */
  private void parkUnknown(ClaimedAttempt a) {
    journal.complete(
        a.lease(),
        new StepOutcome.Parked(
            CompletionReason.WORKER_ERROR, ErrorCode.EFFECT_OUTCOME_UNKNOWN, json("c", "u")));
  }

  private RunRef parkedAfterUnknownEffect() {
    RunRef id = start(run(iterations(agent("a", "/x"), 3), dependsOn(agent("b"), "a")));
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), "/x");
    parkUnknown(a);
    return id;
  }

  @Test
  void resolvingAParkedStepAsPerformedSucceedsItWithTheGivenOutput() {
    RunRef id = parkedAfterUnknownEffect();
    RunSnapshot s = journal.resolveStep(id, "a", Optional.of(json("charged", "yes")), "ops");
    assertThat(s.status()).isEqualTo(RunStatus.RUNNING);
    assertThat(s.step("a").orElseThrow().status()).isEqualTo(StepStatus.SUCCEEDED);
    assertThat(s.step("a").orElseThrow().output()).contains(json("charged", "yes"));
    assertThat(s.step("b").orElseThrow().status()).isEqualTo(StepStatus.READY);
    assertThat(entriesOf(id, JournalEntry.StepResolved.class).getFirst().performed()).isTrue();
  }

  @Test
  void anOutputPastTheStepOutputLimitResolvingAParkedStepIsRefusedAndTheStepStaysParked() {
    RunRef id = parkedAfterUnknownEffect();
    int before = journal.entries(id).size();
    long bound = PayloadLimits.DEFAULTS.maxStepOutputBytes();

    assertRefused(
        () -> journal.resolveStep(id, "a", Optional.of(payloadOf(bound + 1)), "ops"),
        ErrorCode.PAYLOAD_TOO_LARGE);

    assertThat(journal.entries(id)).hasSize(before);
    assertThat(stepStatus(id, "a")).isEqualTo(StepStatus.PARKED);
    journal.resolveStep(id, "a", Optional.of(payloadOf(bound)), "ops");
    assertThat(stepStatus(id, "a")).isEqualTo(StepStatus.SUCCEEDED);
  }

  @Test
  void resolvingAParkedStepAsNotPerformedRunsItAgainWithAFreshElection() {
    RunRef id = parkedAfterUnknownEffect();
    journal.resolveStep(id, "a", Optional.empty(), "ops");
    ClaimedAttempt again = claimOne();
    assertThat(again.step().id()).isEqualTo("a");
    EffectElection e = journal.recordEffect(again.lease(), "/x");
    assertThat(e.takenOver()).isFalse();
    assertThat(e.deduped()).isFalse();
  }

  private RunRef parkedMcpCall(Optional<RunRef> parent) {
    RunRef id = new RunRef("call-" + System.nanoTime());
    JsonNode input = JSON.objectNode().put("title", "printer on fire");
    journal.admit(
        new StartRun(
            Optional.of(id),
            id.value(),
            run(Specs.mcpCall("call", "tickets", "create_ticket", input)),
            parent,
            "api"),
        Admit.queued());
    ClaimedAttempt a = claimOne();
    assertThat(a.lease().runId()).isEqualTo(id);
    journal.recordEffect(a.lease(), "/mcp/tickets/create_ticket");
    parkUnknown(a);
    return id;
  }

  @Test
  void resolvingAParkedMcpCallAsPerformedSucceedsItWithTheReceiptOfTheGivenToolResult() {
    RunRef id = parkedMcpCall(Optional.empty());
    ObjectNode result = JSON.objectNode();
    result.putArray("content").addObject().put("type", "text").put("text", "T-1");
    result.set("structuredContent", json("id", "T-1"));
    result.put("isError", false);

    RunSnapshot s = journal.resolveStep(id, "call", Optional.of(result), "ops");

    JsonNode expected =
        McpReceipt.of(
            "tickets",
            "create_ticket",
            JSON.objectNode().put("title", "printer on fire"),
            result,
            Keys.idempotencyKey(id, "call"));
    assertThat(s.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(s.step("call").orElseThrow().output()).contains(expected);
    assertThat(entriesOf(id, JournalEntry.StepResolved.class).getFirst().output())
        .contains(expected);
  }

  @Test
  void aBareObjectResolvingAnMcpCallIsTakenAsTheToolsStructuredContent() {
    RunRef id = parkedMcpCall(Optional.empty());

    RunSnapshot s = journal.resolveStep(id, "call", Optional.of(json("id", "T-2")), "ops");

    JsonNode output = s.step("call").orElseThrow().output().orElseThrow();
    assertThat(output.path("type").asText()).isEqualTo("mcp");
    assertThat(output.path("idempotencyKey").asText()).isEqualTo(Keys.idempotencyKey(id, "call"));
    assertThat(output.path("output").path("structuredContent")).isEqualTo(json("id", "T-2"));
    assertThat(output.path("output").path("isError").asBoolean(true)).isFalse();
    assertThat(output.path("output").path("content").isArray()).isTrue();
  }

  @Test
  void anMcpCallResolvedWithAResultThatIsNoObjectOrAnErrorIsRefusedWritingNothing() {
    RunRef id = parkedMcpCall(Optional.empty());
    int before = journal.entries(id).size();
    assertRefused(
        () -> journal.resolveStep(id, "call", Optional.of(JSON.textNode("done")), "ops"),
        ErrorCode.INVALID_INPUT);
    ObjectNode failed = JSON.objectNode();
    failed.putArray("content");
    failed.put("isError", true);
    assertRefused(
        () -> journal.resolveStep(id, "call", Optional.of(failed), "ops"), ErrorCode.INVALID_INPUT);
    assertThat(journal.entries(id)).hasSize(before);
    assertThat(stepStatus(id, "call")).isEqualTo(StepStatus.PARKED);
  }

  /** A body parked because the MCP call it awaits (its child run) parked: {parent, child}. */
  private RunRef[] parkedParentOfParkedCall() {
    RunRef parent = start(run(agent("body", "/memo/*")));
    ClaimedAttempt body = claimOne();
    RunRef child = parkedMcpCall(Optional.of(parent));
    parkUnknown(body);
    assertThat(snapshot(parent).status()).isEqualTo(RunStatus.PARKED);
    return new RunRef[] {parent, child};
  }

  @Test
  void resolvingTheParkedChildOfAParkedParentResumesTheParent() {
    RunRef[] runs = parkedParentOfParkedCall();
    RunRef parent = runs[0];
    RunRef child = runs[1];

    journal.resolveStep(child, "call", Optional.of(json("id", "T-3")), "ops");

    assertThat(snapshot(parent).status()).isEqualTo(RunStatus.RUNNING);
    assertThat(stepStatus(parent, "body")).isEqualTo(StepStatus.READY);
    assertThat(types(parent)).last().isEqualTo("run.resumed");
    assertThat(claimOne().lease().runId()).isEqualTo(parent);
  }

  @Test
  void resolvingAChildAsNotPerformedAlsoResumesItsParkedParent() {
    RunRef[] runs = parkedParentOfParkedCall();
    RunRef parent = runs[0];
    RunRef child = runs[1];

    journal.resolveStep(child, "call", Optional.empty(), "ops");

    assertThat(snapshot(child).status()).isEqualTo(RunStatus.RUNNING);
    assertThat(snapshot(parent).status()).isEqualTo(RunStatus.RUNNING);
  }

  @Test
  void resolvingAStepThatIsNotParkedIsRefused() {
    RunRef id = start(run(agent("a")));
    assertRefused(
        () -> journal.resolveStep(id, "a", Optional.empty(), "ops"), ErrorCode.INVALID_INPUT);
    assertRefused(
        () -> journal.resolveStep(id, "zz", Optional.empty(), "ops"), ErrorCode.STEP_NOT_FOUND);
  }

  /** The server's requests of a call parked for input: a form asking for a name, a URL. */
  private static ObjectNode inputRequests(boolean withUrl) {
    ObjectNode schema = JSON.objectNode().put("type", "object");
    schema.putObject("properties").putObject("name").put("type", "string").put("minLength", 1);
    schema.putArray("required").add("name");
    ObjectNode requests = JSON.objectNode();
    ObjectNode form = requests.putObject("who").put("method", "elicitation/create");
    form.putObject("params")
        .put("mode", "form")
        .put("message", "Who?")
        .set("requestedSchema", schema);
    if (withUrl) {
      ObjectNode url = requests.putObject("login").put("method", "elicitation/create");
      url.putObject("params")
          .put("mode", "url")
          .put("message", "Sign in")
          .put("url", "https://x.invalid");
    }
    return requests;
  }

  /** Starts a one-call run (step {@code call} calling {@code tool} on {@code server}). */
  private RunRef startCall(String prefix, String server, String tool, Optional<RunRef> parent) {
    RunRef id = new RunRef(prefix + System.nanoTime());
    journal.admit(
        new StartRun(
            Optional.of(id),
            id.value(),
            run(Specs.mcpCall("call", server, tool, JSON.objectNode())),
            parent,
            "api"),
        Admit.queued());
    return id;
  }

  private RunRef parkedForInput(Optional<RunRef> parent, boolean withUrl) {
    RunRef id = startCall("ask-", "forms", "ask", parent);
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), "/mcp/forms/ask");
    ObjectNode tail = JSON.objectNode().put("type", "mcp").put("diagnostic", "input_required");
    tail.set(DurableInput.REQUESTS, inputRequests(withUrl));
    tail.put(DurableInput.REQUEST_STATE, "state-1");
    journal.complete(
        a.lease(),
        new StepOutcome.Parked(CompletionReason.WORKER_ERROR, ErrorCode.INPUT_REQUIRED, tail));
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.PARKED);
    return id;
  }

  @Test
  void anAnswerToACallParkedForInputIsJournaledAndRunsTheCallAgainWithAFreshElection() {
    RunRef id = parkedForInput(Optional.empty(), false);

    RunSnapshot s =
        journal.answerInput(id, "call", new InputAnswer.Accept(json("name", "Ada")), "ops");

    assertThat(s.status()).isEqualTo(RunStatus.RUNNING);
    assertThat(s.step("call").orElseThrow().status()).isEqualTo(StepStatus.READY);
    JournalEntry.StepAnswered answered = entriesOf(id, JournalEntry.StepAnswered.class).getFirst();
    assertThat(answered.by()).isEqualTo("ops");
    assertThat(answered.responses().path("who").path("action").asText()).isEqualTo("accept");
    assertThat(answered.responses().path("who").path("content")).isEqualTo(json("name", "Ada"));
    DurableInput.Pending pending = DurableInput.pending(journal.entries(id), "call").orElseThrow();
    assertThat(pending.requestState()).contains("state-1");
    assertThat(pending.inputResponses()).containsOnlyKeys("who");
    EffectElection again = journal.recordEffect(claimOne().lease(), "/mcp/forms/ask");
    assertThat(again.takenOver()).isFalse();
    assertThat(again.deduped()).isFalse();
  }

  @Test
  void anAnswerTheRequestedSchemaRefusesIsRefusedWithTheSchemaErrorWritingNothing() {
    RunRef id = parkedForInput(Optional.empty(), false);
    List<JournalRecord> before = journal.entries(id);

    assertThatThrownBy(
            () -> journal.answerInput(id, "call", new InputAnswer.Accept(json("name", "")), "ops"))
        .isInstanceOf(FlowsException.class)
        .satisfies(e -> assertThat(((FlowsException) e).code()).isEqualTo(ErrorCode.INVALID_INPUT))
        .hasMessageContaining("/name: shorter than minLength 1");
    assertRefused(
        () ->
            journal.answerInput(
                id, "call", new InputAnswer.Accept(JSON.objectNode().put("name", 7)), "ops"),
        ErrorCode.INVALID_INPUT);
    assertRefused(
        () ->
            journal.answerInput(
                id,
                "call",
                new InputAnswer.Accept(JSON.objectNode().put("nom", "Ada").put("name", "Ada")),
                "ops"),
        ErrorCode.INVALID_INPUT);

    assertThat(journal.entries(id)).isEqualTo(before);
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.PARKED);
  }

  @Test
  void severalRequestsAreAnsweredByKeyAndAUrlIsAnsweredWithAnEmptyObject() {
    RunRef id = parkedForInput(Optional.empty(), true);
    assertRefused(
        () -> journal.answerInput(id, "call", new InputAnswer.Accept(json("name", "Ada")), "ops"),
        ErrorCode.INVALID_INPUT);
    ObjectNode both = JSON.objectNode();
    both.set("who", json("name", "Ada"));
    both.set("login", json("visited", "yes"));
    assertRefused(
        () -> journal.answerInput(id, "call", new InputAnswer.Accept(both), "ops"),
        ErrorCode.INVALID_INPUT);
    both.putObject("login");

    journal.answerInput(id, "call", new InputAnswer.Accept(both), "ops");

    JsonNode r = entriesOf(id, JournalEntry.StepAnswered.class).getFirst().responses();
    assertThat(r.path("login")).isEqualTo(JSON.objectNode().put("action", "accept"));
    assertThat(r.path("who").path("content")).isEqualTo(json("name", "Ada"));
  }

  @Test
  void aDeclineAnswersEveryRequestDeclined() {
    RunRef id = parkedForInput(Optional.empty(), true);

    journal.answerInput(id, "call", new InputAnswer.Decline(), "ops");

    JsonNode r = entriesOf(id, JournalEntry.StepAnswered.class).getFirst().responses();
    assertThat(r.path("who").path("action").asText()).isEqualTo("decline");
    assertThat(r.path("login").path("action").asText()).isEqualTo("decline");
  }

  /** A call parked for approval before it was sent (no effect recorded). */
  private RunRef parkedForApproval() {
    RunRef id = startCall("approve-", "pay", "refund", Optional.empty());
    ClaimedAttempt a = claimOne();
    ObjectNode tail = JSON.objectNode().put("type", "mcp").put("diagnostic", "input_required");
    ObjectNode request =
        tail.putObject(DurableInput.REQUESTS)
            .putObject(ToolApproval.KEY)
            .put("method", ToolApproval.METHOD);
    request
        .putObject("params")
        .put("server", "pay")
        .put("tool", "refund")
        .set("arguments", JSON.objectNode().put("amountCents", 500));
    journal.complete(
        a.lease(),
        new StepOutcome.Parked(CompletionReason.WORKER_ERROR, ErrorCode.INPUT_REQUIRED, tail));
    return id;
  }

  @Test
  void anApprovalTakesApproveDenyOrEditedArgumentsAndRefusesAnyOtherShapeWritingNothing() {
    RunRef id = parkedForApproval();
    List<JournalRecord> before = journal.entries(id);
    for (JsonNode bad :
        List.of(
            JSON.objectNode().put("approve", false),
            JSON.objectNode().put("deny", " "),
            JSON.objectNode().put("args", 5),
            JSON.objectNode().put("approve", true).put("deny", "both"),
            json("name", "Ada"),
            JSON.textNode("yes"))) {
      assertRefused(
          () -> journal.answerInput(id, "call", new InputAnswer.Accept(bad), "ops"),
          ErrorCode.APPROVAL_ANSWER_INVALID);
    }
    assertThat(journal.entries(id)).isEqualTo(before);
    ObjectNode edited = JSON.objectNode();
    edited.putObject("args").put("amountCents", 300);

    RunSnapshot s = journal.answerInput(id, "call", new InputAnswer.Accept(edited), "ada");

    assertThat(s.step("call").orElseThrow().status()).isEqualTo(StepStatus.READY);
    JournalEntry.StepAnswered answered = entriesOf(id, JournalEntry.StepAnswered.class).getFirst();
    assertThat(answered.by()).isEqualTo("ada");
    assertThat(answered.responses()).isEqualTo(JSON.objectNode().set("approval", edited));
    assertThat(ToolApproval.decision(journal.entries(id), "call"))
        .contains(new ToolApproval.Decision.Edited(edited.get("args"), "ada"));
    // The approval is flows' own: the call is never sent with it as the server's input.
    assertThat(DurableInput.pending(journal.entries(id), "call")).isEmpty();
  }

  @Test
  void aDeclinedApprovalIsJournaledAsADenial() {
    RunRef id = parkedForApproval();

    journal.answerInput(id, "call", new InputAnswer.Decline(), "ops");

    assertThat(ToolApproval.decision(journal.entries(id), "call"))
        .contains(new ToolApproval.Decision.Denied("declined", "ops"));
  }

  @Test
  void onlyAStepParkedForInputTakesAnAnswer() {
    RunRef unknown = parkedMcpCall(Optional.empty());
    assertRefused(
        () -> journal.answerInput(unknown, "call", new InputAnswer.Decline(), "ops"),
        ErrorCode.INVALID_INPUT);
    RunRef id = parkedForInput(Optional.empty(), false);
    assertRefused(
        () -> journal.answerInput(id, "nope", new InputAnswer.Decline(), "ops"),
        ErrorCode.STEP_NOT_FOUND);
    journal.answerInput(id, "call", new InputAnswer.Decline(), "ops");
    assertRefused(
        () -> journal.answerInput(id, "call", new InputAnswer.Decline(), "ops"),
        ErrorCode.INVALID_INPUT);
  }

  @Test
  void answeringTheParkedChildOfAParkedParentResumesTheParent() {
    RunRef parent = start(run(agent("body", "/memo/*")));
    ClaimedAttempt body = claimOne();
    RunRef child = parkedForInput(Optional.of(parent), false);
    parkUnknown(body);

    journal.answerInput(child, "call", new InputAnswer.Accept(json("name", "Ada")), "ops");

    assertThat(snapshot(child).status()).isEqualTo(RunStatus.RUNNING);
    assertThat(snapshot(parent).status()).isEqualTo(RunStatus.RUNNING);
    assertThat(types(parent)).last().isEqualTo("run.resumed");
  }

  @Test
  void resumingAFailedRunMakesItsFailedStepReadyForOneMoreAttempt() {
    RunRef id = start(run(agent("a")));
    journal.complete(claimOne().lease(), retryableFailure());
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.FAILED);
    RunSnapshot s = journal.resumeRun(id, "ops");
    assertThat(s.status()).isEqualTo(RunStatus.RUNNING);
    assertThat(s.completedAt()).isEmpty();
    ClaimedAttempt again = claimOne();
    assertThat(again.lease().attempt()).isEqualTo(2);
    journal.complete(again.lease(), ok());
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(types(id)).contains("run.resumed");
  }

  @Test
  void resumingAParkedRunRunsTheParkedStepAgain() {
    RunRef id = parkedAfterUnknownEffect();
    assertThat(journal.resumeRun(id, "ops").status()).isEqualTo(RunStatus.RUNNING);
    ClaimedAttempt again = claimOne();
    assertThat(journal.recordEffect(again.lease(), "/x").takenOver()).isTrue();
  }

  @Test
  void resumingASucceededRunIsRefusedAndARunningRunIsUnchanged() {
    RunRef id = start(run(agent("a")));
    assertThat(journal.resumeRun(id, "ops").status()).isEqualTo(RunStatus.RUNNING);
    journal.complete(claimOne().lease(), ok());
    assertRefused(() -> journal.resumeRun(id, "ops"), ErrorCode.RUN_TERMINAL);
    assertRefused(() -> journal.resumeRun(new RunRef("nope"), "ops"), ErrorCode.RUN_NOT_FOUND);
  }

  // ---- upgrade

  private static final String TRIAGE_V1 = "flow:triage@1";
  private static final String TRIAGE_V2 = "flow:triage@2";
  private static final JsonNode FROZEN_SERVERS = JSON.objectNode().put("tickets", "frozen");

  /** A flow run's body step at version 1 of flow {@code triage}, a class flow. */
  private static StepSpec triageBody() {
    FlowBodyInstruction body =
        FlowBodyInstruction.of(
            "triage",
            "1",
            new FlowBodyInstruction.Origin.ClassFlow("app.TriageV1"),
            FROZEN_SERVERS);
    StepSpec a = agent("body", "/memo/*");
    return new StepSpec(
        a.id(),
        a.dependsOn(),
        JSON.objectNode().put("ticket", 7),
        a.maxIterations(),
        a.retry(),
        a.leaseMs(),
        a.timeoutMs(),
        new StepBody.Agent(
            body.toJson(), dev.flows.kernel.spec.RecoveryMode.RESET, List.of("/memo/*")));
  }

  private static RunUpgrade toV2(int checkedAttempts) {
    return new RunUpgrade(
        "triage", "2", new FlowBodyInstruction.Origin.ClassFlow("app.TriageV2"), checkedAttempts);
  }

  private List<ClaimedAttempt> claimRoute(String route) {
    return journal.claim(
        new ClaimRequest(
            WORKER, EnumSet.allOf(StepKind.class), 1, LONG_LEASE, Optional.of(Set.of(route))));
  }

  @Test
  void anUpgradedRunIsClaimedOnlyOnTheNewVersionsRouteWithItsInputAndServersKept() {
    RunRef id = start(run(triageBody()));
    RunSnapshot moved = journal.upgradeRun(id, toV2(0), "ops@host");
    assertThat(moved.status()).isEqualTo(RunStatus.RUNNING);
    assertThat(claimRoute(TRIAGE_V1)).isEmpty();
    ClaimedAttempt a = claimRoute(TRIAGE_V2).getFirst();
    FlowBodyInstruction body = FlowBodyInstruction.of((StepBody.Agent) a.step().body());
    assertThat(body.version()).isEqualTo("2");
    assertThat(body.origin().className()).isEqualTo("app.TriageV2");
    assertThat(body.inventory()).isEqualTo(FROZEN_SERVERS);
    assertThat(a.step().input()).isEqualTo(JSON.objectNode().put("ticket", 7));
    JournalEntry.RunUpgraded e = entriesOf(id, JournalEntry.RunUpgraded.class).getFirst();
    assertThat(e)
        .isEqualTo(new JournalEntry.RunUpgraded(id, "1", TRIAGE_V1, "2", TRIAGE_V2, "ops@host"));
  }

  @Test
  void upgradingIsRefusedWhileTheBodyRunsAndAfterAnAttemptTheCheckDidNotSee() {
    RunRef id = start(run(triageBody()));
    ClaimedAttempt a = claimRoute(TRIAGE_V1).getFirst();
    assertRefused(() -> journal.upgradeRun(id, toV2(1), "ops"), ErrorCode.LEASE_CONFLICT);
    journal.complete(a.lease(), StepOutcome.Suspended.signal("go", Duration.ofHours(1)));
    assertRefused(() -> journal.upgradeRun(id, toV2(0), "ops"), ErrorCode.LEASE_CONFLICT);
    assertThat(types(id)).doesNotContain("run.upgraded");
    journal.upgradeRun(id, toV2(1), "ops");
    journal.sendSignal(id, "go", JSON.objectNode(), Optional.empty());
    assertThat(claimRoute(TRIAGE_V2)).hasSize(1);
  }

  @Test
  void upgradingAgainChangesNothingAndOtherFlowsEndedRunsAndStepRunsAreRefused() {
    RunRef id = start(run(triageBody()));
    journal.upgradeRun(id, toV2(0), "ops");
    journal.upgradeRun(id, toV2(0), "ops");
    assertThat(entriesOf(id, JournalEntry.RunUpgraded.class)).hasSize(1);
    RunUpgrade otherFlow =
        new RunUpgrade("billing", "2", new FlowBodyInstruction.Origin.ClassFlow("app.B"), 0);
    assertRefused(() -> journal.upgradeRun(id, otherFlow, "ops"), ErrorCode.INVALID_INPUT);
    RunRef plain = start(run(agent("a")));
    assertRefused(() -> journal.upgradeRun(plain, toV2(0), "ops"), ErrorCode.INVALID_INPUT);
    journal.complete(claimRoute(TRIAGE_V2).getFirst().lease(), ok());
    assertRefused(() -> journal.upgradeRun(id, toV2(1), "ops"), ErrorCode.RUN_TERMINAL);
    assertRefused(
        () -> journal.upgradeRun(new RunRef("nope"), toV2(0), "ops"), ErrorCode.RUN_NOT_FOUND);
  }

  // ---- cancel

  @Test
  void aCancelEndsRunningAttemptsPendingStepsAndTheRun() {
    RunRef id = start(run(agent("a"), agent("b"), dependsOn(agent("c"), "a")));
    ClaimedAttempt a =
        claim(5, StepKind.AGENT).stream()
            .filter(c -> c.step().id().equals("a"))
            .findFirst()
            .orElseThrow();
    CancelOutcome out = journal.cancelRun(id, "operator");
    assertThat(out).isEqualTo(new CancelOutcome(id, RunStatus.CANCELED, false, false));
    RunSnapshot snap = snapshot(id);
    assertThat(snap.steps()).extracting(StepSnapshot::status).containsOnly(StepStatus.CANCELED);
    assertThat(snap.completionReason()).contains(RunCompletionReason.CANCELED);
    List<JournalEntry.StepCompleted> done = entriesOf(id, JournalEntry.StepCompleted.class);
    assertThat(done)
        .extracting(JournalEntry.StepCompleted::stepId)
        .containsExactlyInAnyOrder(a.step().id(), "b");
    assertThat(done)
        .extracting(JournalEntry.StepCompleted::reason)
        .containsOnly(CompletionReason.CANCELED);
    assertThat(types(id)).contains("run.cancel.requested").endsWith("run.completed");
  }

  @Test
  void aCancelIsIdempotent() {
    RunRef id = start(run(agent("a")));
    journal.cancelRun(id, "x");
    int n = journal.entries(id).size();
    CancelOutcome again = journal.cancelRun(id, "x");
    assertThat(again.alreadyTerminal()).isTrue();
    assertThat(journal.entries(id)).hasSize(n);
  }

  @Test
  void aParkedRunCanBeCanceled() {
    RunRef id = parkedAfterUnknownEffect();
    assertThat(journal.cancelRun(id, "x").status()).isEqualTo(RunStatus.CANCELED);
    assertThat(stepStatus(id, "a")).isEqualTo(StepStatus.CANCELED);
  }

  @Test
  void aCancelBeforeStartLeavesATombstoneThatRefusesTheLaterStart() {
    RunRef id = new RunRef("late-child");
    CancelOutcome out = journal.cancelRun(id, "dispatch deadline");
    assertThat(out.tombstoned()).isTrue();
    assertThat(out.status()).isEqualTo(RunStatus.CANCELED);
    assertRefused(
        () ->
            journal.admit(
                new StartRun(Optional.of(id), "child-key", run(agent("a")), Optional.empty(), "x"),
                Admit.queued()),
        ErrorCode.RUN_TERMINAL);
    assertThat(types(id)).containsExactly("run.cancel.requested");
    assertThat(claim(5)).isEmpty();
  }

  // ---- wake-ups

  @Test
  void awaitWorkReturnsEarlyWhenARunStarts() throws Exception {
    CompletableFuture<Boolean> woke = waiter(Duration.ofSeconds(20));
    // Give the waiter time to start listening.
    Thread.sleep(300);
    // An awaitWork that answers at once, whatever happens, would pass below without this.
    assertThat(woke).as("awaitWork returned before any work appeared").isNotDone();
    start(run(agent("a")));
    assertThat(woke.get(15, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aRunAdmittedClaimedAndItsSuccessWakeNoClaimer() throws Exception {
    CompletableFuture<Boolean> woke = waiter(Duration.ofSeconds(20));
    Thread.sleep(300);
    ClaimedStart s =
        journal.admit(
            bodyRequest("quiet-1", run(agent("body"))), Admit.claimedHere(WORKER, LONG_LEASE));
    journal.complete(s.attempt().orElseThrow().lease(), ok());
    assertThat(journal.run(s.started().runId()).orElseThrow().status())
        .isEqualTo(RunStatus.SUCCEEDED);
    // Nothing became claimable: the process that admitted the run runs it, and its end is for
    // the run's watchers. A wake-up is delivered after its commit: give it time to arrive.
    Thread.sleep(500);
    assertThat(woke).as("a claimed run and its success woke a claimer").isNotDone();
    // The waiter was listening all along: work that is claimable wakes it (without this, an
    // awaitWork that never wakes would pass).
    start(run(agent("a")));
    assertThat(woke.get(15, TimeUnit.SECONDS)).isTrue();
  }

  private CompletableFuture<Boolean> waiter(Duration timeout) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return journal.awaitWork(timeout);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
        });
  }

  @Test
  void awaitWorkTimesOutWhenNothingHappens() throws Exception {
    assertThat(journal.awaitWork(Duration.ofMillis(50))).isFalse();
  }

  // ---- admitted claimed here

  private StartRun bodyRequest(String key, RunSpec spec) {
    return new StartRun(
        Optional.empty(), key, spec, Optional.empty(), "contract", Optional.empty(), "fast-lane");
  }

  @Test
  void aClaimedHereAdmissionAdmitsTheRunAndOpensAttemptOneLeasedToTheWorkerWithNoElection() {
    ClaimedStart s =
        journal.admit(
            bodyRequest("claimed-1", run(agent("body", "/memo/0"))),
            Admit.claimedHere(WORKER, LONG_LEASE));
    assertThat(s.started().created()).isTrue();
    assertThat(s.started().status()).isEqualTo(RunStatus.RUNNING);
    RunRef id = s.started().runId();
    ClaimedAttempt a = s.attempt().orElseThrow();
    assertThat(a.lease()).isEqualTo(new LeaseToken(id, "body", 1, Keys.leaseId(id, "body", 1)));
    assertThat(a.idempotencyKey()).isEqualTo(Keys.idempotencyKey(id, "body"));
    assertThat(a.leaseMs()).isEqualTo(LONG_LEASE.toMillis());
    assertThat(types(id)).containsExactly("run.spawned", "step.attempt.started");
    JournalEntry.StepAttemptStarted started =
        entriesOf(id, JournalEntry.StepAttemptStarted.class).getFirst();
    assertThat(started.workerId()).isEqualTo(WORKER);
    assertThat(started.leaseDeadline()).isEqualTo(a.leaseDeadline());
    assertThat(stepStatus(id, "body")).isEqualTo(StepStatus.RUNNING);
    assertThat(snapshot(id).queue()).isEqualTo("fast-lane");
    assertThat(snapshot(id).admissionKey()).isEqualTo("claimed-1");
    assertThat(claim(5)).as("a claimed step is not offered to claimers").isEmpty();
    // Leased exactly like a claimed attempt: renewable, fenced, and it ends the run.
    elapse(Duration.ofSeconds(1));
    assertThat(journal.heartbeat(a.lease())).isAfter(a.leaseDeadline());
    journal.recordConfirmedEffect(a.lease(), "/memo/0", Optional.of(json("m", "0")));
    assertThat(journal.complete(a.lease(), ok()).runStatus()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(types(id))
        .containsExactly(
            "run.spawned",
            "step.attempt.started",
            "effect.recorded",
            "effect.confirmed",
            "step.completed",
            "run.completed");
  }

  @Test
  void aClaimedHereAdmissionOfAnAdmittedKeyAnswersThatRunAsAQueuedOneDoesAndClaimsNothing() {
    StartRun r = bodyRequest("claimed-dup", run(agent("body")));
    RunRef id = journal.admit(r, Admit.queued()).runId();
    int n = journal.entries(id).size();
    ClaimedStart again = journal.admit(r, Admit.claimedHere(WORKER, LONG_LEASE));
    assertThat(again.started().runId()).isEqualTo(id);
    assertThat(again.started().created()).isFalse();
    assertThat(again.attempt()).isEmpty();
    assertThat(journal.entries(id)).hasSize(n);
    assertThat(stepStatus(id, "body")).isEqualTo(StepStatus.READY);
    ClaimedStart claimedFirst =
        journal.admit(
            bodyRequest("claimed-dup2", run(agent("body"))), Admit.claimedHere(WORKER, LONG_LEASE));
    assertThat(
            journal
                .admit(
                    bodyRequest("claimed-dup2", run(agent("body"))),
                    Admit.claimedHere(WORKER, LONG_LEASE))
                .attempt())
        .isEmpty();
    assertRefused(
        () ->
            journal.admit(
                bodyRequest("claimed-dup2", run(agent("other"))),
                Admit.claimedHere(WORKER, LONG_LEASE)),
        ErrorCode.RUN_ADMISSION_CONFLICT);
    assertThat(types(claimedFirst.started().runId()))
        .containsExactly("run.spawned", "step.attempt.started");
  }

  @Test
  void aClaimedHereAdmissionOfASpecWithoutExactlyOneReadyStepIsRefusedAndWritesNothing() {
    assertRefused(
        () ->
            journal.admit(
                bodyRequest("claimed-two", run(command("a", "true"), command("b", "true"))),
                Admit.claimedHere(WORKER, LONG_LEASE)),
        ErrorCode.INVALID_INPUT);
    assertThat(claim(5)).isEmpty();
  }

  @Test
  void aClaimedAdmissionsExpiredLeaseIsRetriedByAnotherClaimer() {
    ClaimedStart s =
        journal.admit(
            bodyRequest("claimed-dead", run(iterations(lease(agent("body"), shortLease()), 2))),
            Admit.claimedHere(WORKER, LONG_LEASE));
    assertThat(s.attempt().orElseThrow().leaseMs()).isEqualTo(shortLease().toMillis());
    elapse(pastShortLease());
    assertThat(journal.expireLeases()).hasSize(1);
    elapse(pastShortLease());
    ClaimedAttempt retry = claimOne();
    assertThat(retry.lease().runId()).isEqualTo(s.started().runId());
    assertThat(retry.lease().attempt()).isEqualTo(2);
    assertRefused(
        () -> journal.complete(s.attempt().get().lease(), ok()), ErrorCode.LEASE_CONFLICT);
  }

  // ---- a run admitted with its end

  private static StepOutcome.Succeeded succeeded() {
    return new StepOutcome.Succeeded(json("out", "x"));
  }

  @Test
  void anAdmissionWithItsEndJournalsWhatAClaimedAdmissionThenTheCompletionWould() {
    RunRef id = RunRef.random();
    StartRun r = bodyRequest("ended-1", run(agent("body", "/memo/0", "/memo/1"))).withRunId(id);
    StepOutcome.Succeeded end =
        new StepOutcome.Succeeded(
            json("out", "x"),
            List.of(
                new MemoEffect("/memo/0", Optional.of(json("v", "0"))),
                new MemoEffect("/memo/1", Optional.of(json("v", "1")))));
    CompletionAck ack = journal.admit(r, Admit.withItsEnd(WORKER, LONG_LEASE, end)).orElseThrow();
    assertThat(ack.runStatus()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(ack.reason()).isEqualTo(CompletionReason.SUCCESS);
    assertThat(types(id))
        .containsExactly(
            "run.spawned",
            "step.attempt.started",
            "effect.recorded",
            "effect.confirmed",
            "effect.recorded",
            "effect.confirmed",
            "step.completed",
            "run.completed");
    JournalEntry.StepAttemptStarted started =
        entriesOf(id, JournalEntry.StepAttemptStarted.class).getFirst();
    assertThat(started.workerId()).isEqualTo(WORKER);
    assertThat(started.leaseId()).isEqualTo(Keys.leaseId(id, "body", 1));
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(snapshot(id).admissionKey()).isEqualTo("ended-1");
    assertThat(snapshot(id).queue()).isEqualTo("fast-lane");
    assertThat(stepStatus(id, "body")).isEqualTo(StepStatus.SUCCEEDED);
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class))
        .extracting(JournalEntry.EffectConfirmed::output)
        .containsExactly(Optional.of(json("v", "0")), Optional.of(json("v", "1")));
    assertThat(entriesOf(id, JournalEntry.StepCompleted.class).getFirst().output())
        .contains(json("out", "x"));
    assertThat(claim(5)).isEmpty();
  }

  @Test
  void anAdmissionWithItsEndOfAnAdmittedKeyWritesNothingAndAnswersEmpty() {
    StartRun r = bodyRequest("ended-dup", run(agent("body")));
    RunRef id = journal.admit(r, Admit.queued()).runId();
    int n = journal.entries(id).size();
    assertThat(journal.admit(r, Admit.withItsEnd(WORKER, LONG_LEASE, succeeded()))).isEmpty();
    assertThat(journal.entries(id)).hasSize(n);
    assertThat(stepStatus(id, "body")).isEqualTo(StepStatus.READY);
  }

  @Test
  void anAdmissionWithItsEndWithAnUndeclaredMemoEndsAsTheCompletionWouldAndKeepsTheAdmission() {
    RunRef id = RunRef.random();
    StartRun r = bodyRequest("ended-undeclared", run(agent("body"))).withRunId(id);
    StepOutcome.Succeeded end =
        new StepOutcome.Succeeded(
            json("out", "x"), List.of(new MemoEffect("/undeclared", Optional.empty())));
    assertRefused(
        () -> journal.admit(r, Admit.withItsEnd(WORKER, LONG_LEASE, end)),
        ErrorCode.EFFECT_NOT_DECLARED);
    assertThat(types(id)).containsExactly("run.spawned", "step.attempt.started");
  }

  // ---- a run held back: the deferred mode

  /** A keyless run held back under a new run id, its body's thread started. */
  private HeldAdmission hold(String key, String... surfaces) {
    StartRun r = bodyRequest(key, run(agent("body", surfaces))).withRunId(RunRef.random());
    HeldAdmission held =
        journal.admit(r, Admit.deferred(WORKER, LONG_LEASE, Instant.now().plus(LONG_LEASE)));
    held.bodyStarted();
    return held;
  }

  private RunRef heldRun(HeldAdmission held) {
    return held.attempt().lease().runId();
  }

  @Test
  void aDeferredAdmissionWritesNothingUntilItsBodySucceedsAndThenAdmitsTheRunWithItsEnd()
      throws Exception {
    HeldAdmission held = hold("held-1", "/memo/0");
    RunRef id = heldRun(held);
    assertThat(held.attempt().lease().leaseId()).isEqualTo(Keys.leaseId(id, "body", 1));
    assertThat(claim(5)).isEmpty();
    CompletableFuture<StartedRun> starter =
        CompletableFuture.supplyAsync(() -> held.await(Duration.ofSeconds(30)));
    CompletionAck ack =
        journal.complete(
            held.attempt().lease(),
            new StepOutcome.Succeeded(
                json("out", "x"), List.of(new MemoEffect("/memo/0", Optional.of(json("v", "0"))))));
    assertThat(ack.runStatus()).isEqualTo(RunStatus.SUCCEEDED);
    StartedRun s = starter.get(10, TimeUnit.SECONDS);
    assertThat(s.runId()).isEqualTo(id);
    assertThat(s.created()).isTrue();
    assertThat(s.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(types(id))
        .containsExactly(
            "run.spawned",
            "step.attempt.started",
            "effect.recorded",
            "effect.confirmed",
            "step.completed",
            "run.completed");
  }

  @Test
  void anyOtherVerbNamingAHeldRunAdmitsItClaimedFirst() {
    HeldAdmission held = hold("held-2", "/memo/0");
    RunRef id = heldRun(held);
    journal.recordConfirmedEffects(
        held.attempt().lease(), List.of(new MemoEffect("/memo/0", Optional.empty())));
    assertThat(types(id))
        .containsExactly(
            "run.spawned", "step.attempt.started", "effect.recorded", "effect.confirmed");
    assertThat(held.await(Duration.ZERO).status()).isEqualTo(RunStatus.RUNNING);
    // The success then completes the attempt the admission opened, as any completion does.
    journal.complete(held.attempt().lease(), succeeded());
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  @Test
  void aReadOfAHeldRunAdmitsItClaimedFirstSoTheRunIsNeverSeenMissing() {
    HeldAdmission held = hold("held-3");
    RunRef id = heldRun(held);
    assertThat(journal.run(id)).isPresent();
    assertThat(stepStatus(id, "body")).isEqualTo(StepStatus.RUNNING);
    assertThat(held.await(Duration.ZERO).status()).isEqualTo(RunStatus.RUNNING);
  }

  @Test
  void aSuccessWithMoreMemosThanAnAdmissionCarriesIsCompletedAfterAClaimedAdmission() {
    HeldAdmission held = hold("held-4", "/memo/*");
    RunRef id = heldRun(held);
    List<MemoEffect> memos = new java.util.ArrayList<>();
    for (int i = 0; i <= HeldAdmission.MOST_MEMOS_WITH_ADMISSION; i++) {
      memos.add(new MemoEffect("/memo/" + i, Optional.empty()));
    }
    journal.complete(held.attempt().lease(), new StepOutcome.Succeeded(json("out", "x"), memos));
    // Admitted claimed first: the starter saw the run running, not already ended.
    assertThat(held.await(Duration.ZERO).status()).isEqualTo(RunStatus.RUNNING);
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(types(id).subList(0, 2)).containsExactly("run.spawned", "step.attempt.started");
  }

  @Test
  void aChildStartedByAHeldBodyFindsItsParentAdmitted() {
    HeldAdmission held = hold("held-5");
    RunRef parent = heldRun(held);
    StartRun child =
        new StartRun(
            Optional.empty(), "child-of-held", run(agent("c")), Optional.of(parent), "contract");
    RunRef c = journal.admit(child, Admit.queued()).runId();
    assertThat(snapshot(c).parentRunId()).contains(parent);
    assertThat(snapshot(parent).status()).isEqualTo(RunStatus.RUNNING);
  }

  @Test
  void aStarterWhoseWaitRunsOutAdmitsTheHeldRunClaimedItself() {
    HeldAdmission held = hold("held-6");
    RunRef id = heldRun(held);
    StartedRun s = held.await(Duration.ofMillis(1));
    assertThat(s.runId()).isEqualTo(id);
    assertThat(s.status()).isEqualTo(RunStatus.RUNNING);
    assertThat(stepStatus(id, "body")).isEqualTo(StepStatus.RUNNING);
    assertThat(journal.heartbeat(held.attempt().lease())).isNotNull();
  }

  @Test
  void aHeldRunWhoseAttemptEndsUnadmittedIsLeftForAnyWorkerToClaim() {
    HeldAdmission held = hold("held-7");
    RunRef id = heldRun(held);
    held.attemptEnded();
    assertThat(held.await(Duration.ZERO).created()).isTrue();
    assertThat(stepStatus(id, "body")).isEqualTo(StepStatus.READY);
    assertThat(claim(5)).hasSize(1);
  }

  @Test
  void aDeferredAdmissionOfARequestWithoutARunIdIsRefusedWritingNothing() {
    assertRefused(
        () ->
            journal.admit(
                bodyRequest("held-8", run(agent("body"))),
                Admit.deferred(WORKER, LONG_LEASE, Instant.now())),
        ErrorCode.INVALID_INPUT);
    assertThat(claim(5)).isEmpty();
  }

  // ---- one admission rule: every admission verb meets a run admitted before alike

  /** An admission verb, as the rule sees it: it created a run, answered one, or was refused. */
  private record AdmissionVerb(String name, java.util.function.Predicate<StartRun> created) {}

  private List<AdmissionVerb> admissionVerbs() {
    StepOutcome.Succeeded twoVerbs =
        new StepOutcome.Succeeded(
            json("out", "x"), List.of(new MemoEffect("/undeclared", Optional.empty())));
    return List.of(
        new AdmissionVerb("queued", r -> journal.admit(r, Admit.queued()).created()),
        new AdmissionVerb(
            "claimed here",
            r -> journal.admit(r, Admit.claimedHere(WORKER, LONG_LEASE)).started().created()),
        new AdmissionVerb(
            "with its end",
            r -> journal.admit(r, Admit.withItsEnd(WORKER, LONG_LEASE, succeeded())).isPresent()),
        // Memos one statement cannot carry: the verb admits then completes in turn.
        new AdmissionVerb(
            "with its end and an undeclared memo",
            r -> journal.admit(r, Admit.withItsEnd(WORKER, LONG_LEASE, twoVerbs)).isPresent()),
        new AdmissionVerb(
            "electing",
            r -> {
              journal.admit(r, Admit.claimedHere(WORKER, LONG_LEASE).electing(INLINE_SURFACE));
              return true;
            }));
  }

  /**
   * What each admission verb makes of the request {@code requests} builds for it: {@code created},
   * {@code answered}, or the refusal's code.
   */
  private Map<String, String> admissionOutcomes(
      java.util.function.Function<String, StartRun> requests) {
    Map<String, String> outcomes = new java.util.LinkedHashMap<>();
    for (AdmissionVerb v : admissionVerbs()) {
      String outcome;
      try {
        outcome = v.created().test(requests.apply(v.name())) ? "created" : "answered";
      } catch (FlowsException e) {
        outcome = e.code().wire();
      }
      outcomes.put(v.name(), outcome);
    }
    return outcomes;
  }

  private Map<String, String> everyAdmissionVerb(String outcome) {
    Map<String, String> expected = new java.util.LinkedHashMap<>();
    admissionVerbs().forEach(v -> expected.put(v.name(), outcome));
    return expected;
  }

  private static StartRun oneCall(Optional<RunRef> id, String key, RunSpec spec) {
    return new StartRun(id, key, spec, Optional.empty(), "contract");
  }

  /** What each admission verb makes of run id {@code id} under a key of its own. */
  private Map<String, String> underAnotherKey(RunRef id) {
    return admissionOutcomes(
        verb -> oneCall(Optional.of(id), "second " + verb + " " + id, oneCallSpec()));
  }

  /** A run id of its own for each verb's request. */
  private static RunRef notTheKeys(String verb) {
    return new RunRef("not-" + verb.replaceAll("[^A-Za-z0-9]+", "-"));
  }

  private static RunSpec oneCallSpec() {
    return run(agent("call", INLINE_SURFACE));
  }

  @Test
  void everyAdmissionVerbRefusesARunIdAnotherKeyAdmittedWhileThatRunGoesOn() {
    RunRef leased = new RunRef("other-key-leased");
    journal.admit(oneCall(Optional.of(leased), "first-leased", oneCallSpec()), Admit.queued());
    assertThat(claimOne().lease().runId()).isEqualTo(leased);
    RunRef waiting = new RunRef("other-key-waiting");
    journal.admit(oneCall(Optional.of(waiting), "first-waiting", oneCallSpec()), Admit.queued());
    for (RunRef id : List.of(waiting, leased)) {
      List<JournalRecord> before = journal.entries(id);
      StepStatus step = stepStatus(id, "call");
      assertThat(underAnotherKey(id))
          .as("a run id admitted under another key, its run %s", snapshot(id).status())
          .containsExactlyEntriesOf(everyAdmissionVerb("run_admission_conflict"));
      assertThat(journal.entries(id)).isEqualTo(before);
      assertThat(stepStatus(id, "call")).isEqualTo(step);
    }
  }

  @Test
  void everyAdmissionVerbRefusesRunTerminalARunIdAnotherKeyAdmittedOnceThatRunEnded() {
    RunRef succeeded = new RunRef("other-key-succeeded");
    journal.admit(
        oneCall(Optional.of(succeeded), "first-succeeded", oneCallSpec()), Admit.queued());
    journal.complete(claimOne().lease(), ok());
    RunRef canceled = new RunRef("other-key-canceled");
    journal.admit(oneCall(Optional.of(canceled), "first-canceled", oneCallSpec()), Admit.queued());
    journal.cancelRun(canceled, "test");
    RunRef tombstoned = new RunRef("other-key-tombstoned");
    journal.cancelRun(tombstoned, "dispatch deadline");
    for (RunRef id : List.of(succeeded, canceled, tombstoned)) {
      List<JournalRecord> before = journal.entries(id);
      assertThat(underAnotherKey(id))
          .as("a run id admitted under another key, its run %s", snapshot(id).status())
          .containsExactlyEntriesOf(everyAdmissionVerb("run_terminal"));
      assertThat(journal.entries(id)).isEqualTo(before);
    }
  }

  @Test
  void everyAdmissionVerbRefusesAKeyThatAdmittedAnotherSpecOrAnotherRunId() {
    RunRef id = new RunRef("key-owner");
    journal.admit(oneCall(Optional.of(id), "owned-key", oneCallSpec()), Admit.queued());
    List<JournalRecord> before = journal.entries(id);
    RunSpec otherSpec = run(agent("call", INLINE_SURFACE, "/memo/*"));
    assertThat(admissionOutcomes(verb -> oneCall(Optional.of(id), "owned-key", otherSpec)))
        .as("the key's run id, another spec")
        .containsExactlyEntriesOf(everyAdmissionVerb("run_admission_conflict"));
    assertThat(admissionOutcomes(verb -> oneCall(Optional.empty(), "owned-key", otherSpec)))
        .as("no run id, another spec")
        .containsExactlyEntriesOf(everyAdmissionVerb("run_admission_conflict"));
    assertThat(
            admissionOutcomes(
                verb -> oneCall(Optional.of(notTheKeys(verb)), "owned-key", oneCallSpec())))
        .as("the same spec under another run id")
        .containsExactlyEntriesOf(everyAdmissionVerb("run_admission_conflict"));
    assertThat(journal.entries(id)).isEqualTo(before);
    admissionVerbs().forEach(v -> assertThat(journal.run(notTheKeys(v.name()))).isEmpty());
  }

  @Test
  void everyAdmissionVerbAnswersTheSameAdmissionAgainAsAQueuedOneDoesAndAnElectingOneRefusesIt() {
    Map<String, String> answered = everyAdmissionVerb("answered");
    // An inline call's caller awaits the run it finds instead.
    answered.put("electing", "run_admission_conflict");
    RunRef going = new RunRef("same-again-going");
    journal.admit(oneCall(Optional.of(going), "same-going", oneCallSpec()), Admit.queued());
    RunRef ended = new RunRef("same-again-ended");
    journal.admit(oneCall(Optional.of(ended), "same-ended", oneCallSpec()), Admit.queued());
    journal.cancelRun(ended, "test");
    for (RunRef id : List.of(going, ended)) {
      String key = snapshot(id).admissionKey();
      List<JournalRecord> before = journal.entries(id);
      assertThat(admissionOutcomes(verb -> oneCall(Optional.of(id), key, oneCallSpec())))
          .as("the same run id, key and spec, the run %s", snapshot(id).status())
          .containsExactlyEntriesOf(answered);
      assertThat(admissionOutcomes(verb -> oneCall(Optional.empty(), key, oneCallSpec())))
          .as("the same key and spec with no run id, the run %s", snapshot(id).status())
          .containsExactlyEntriesOf(answered);
      assertThat(journal.entries(id)).isEqualTo(before);
    }
  }

  // ---- inline effects: admitted electing, confirmAndComplete, watchRun

  private static final String INLINE_SURFACE = "/mcp/s/t";

  private StartRun inlineRequest(String id) {
    return new StartRun(
        Optional.of(new RunRef(id)),
        "inline-" + id,
        run(agent("call", INLINE_SURFACE)),
        Optional.empty(),
        "contract");
  }

  private ClaimedEffect startInline(String id) {
    return journal.admit(
        inlineRequest(id), Admit.claimedHere(WORKER, LONG_LEASE).electing(INLINE_SURFACE));
  }

  @Test
  void anElectingAdmissionAdmitsTheRunOpensAttemptOneAndElectsTheEffectAtOnce() {
    ClaimedEffect c = startInline("inline-1");
    RunRef id = new RunRef("inline-1");
    assertThat(c.attempt().lease())
        .isEqualTo(new LeaseToken(id, "call", 1, Keys.leaseId(id, "call", 1)));
    assertThat(c.attempt().idempotencyKey()).isEqualTo(Keys.idempotencyKey(id, "call"));
    assertThat(c.election())
        .isEqualTo(
            new EffectElection(Keys.idempotencyKey(id, "call"), false, false, Optional.empty()));
    assertThat(types(id)).containsExactly("run.spawned", "step.attempt.started", "effect.recorded");
    JournalEntry.StepAttemptStarted started =
        entriesOf(id, JournalEntry.StepAttemptStarted.class).getFirst();
    assertThat(started.workerId()).isEqualTo(WORKER);
    assertThat(started.leaseDeadline()).isEqualTo(c.attempt().leaseDeadline());
    assertThat(stepStatus(id, "call")).isEqualTo(StepStatus.RUNNING);
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.RUNNING);
    assertThat(claim(5)).as("a claimed step is not offered to claimers").isEmpty();
  }

  @Test
  void anInlineLeaseIsLiveAndRenewable() {
    ClaimedEffect c = startInline("inline-renew");
    elapse(Duration.ofSeconds(1));
    assertThat(journal.heartbeat(c.attempt().lease())).isAfter(c.attempt().leaseDeadline());
  }

  @Test
  void anElectingAdmissionIsRefusedWhenTheAdmissionKeyAlreadyAdmittedARun() {
    StartRun r = inlineRequest("inline-dup");
    journal.admit(r, Admit.queued());
    int n = journal.entries(new RunRef("inline-dup")).size();
    assertRefused(
        () -> journal.admit(r, Admit.claimedHere(WORKER, LONG_LEASE).electing(INLINE_SURFACE)),
        ErrorCode.RUN_ADMISSION_CONFLICT);
    assertRefused(() -> startInline("inline-dup"), ErrorCode.RUN_ADMISSION_CONFLICT);
    assertThat(journal.entries(new RunRef("inline-dup"))).hasSize(n);
    assertThat(stepStatus(new RunRef("inline-dup"), "call")).isEqualTo(StepStatus.READY);
  }

  @Test
  void anElectingAdmissionOfATombstonedRunIdIsRefusedRunTerminal() {
    journal.cancelRun(new RunRef("inline-late"), "dispatch deadline");
    assertRefused(() -> startInline("inline-late"), ErrorCode.RUN_TERMINAL);
    assertThat(types(new RunRef("inline-late"))).containsExactly("run.cancel.requested");
  }

  @Test
  void anElectingAdmissionOfAStepThatDoesNotDeclareTheSurfaceWritesNothing() {
    assertRefused(
        () ->
            journal.admit(
                inlineRequest("inline-undeclared"),
                Admit.claimedHere(WORKER, LONG_LEASE).electing("/mcp/x/y")),
        ErrorCode.EFFECT_NOT_DECLARED);
    assertThat(journal.run(new RunRef("inline-undeclared"))).isEmpty();
  }

  @Test
  void confirmAndCompleteConfirmsTheEffectAndEndsTheStepAndTheRunTogether() {
    ClaimedEffect c = startInline("inline-ok");
    RunRef id = new RunRef("inline-ok");
    CompletionAck ack =
        journal.confirmAndComplete(
            c.attempt().lease(),
            INLINE_SURFACE,
            Optional.of(json("receipt", "r1")),
            new StepOutcome.Succeeded(json("receipt", "r1")));
    assertThat(ack.runStatus()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(types(id))
        .containsExactly(
            "run.spawned",
            "step.attempt.started",
            "effect.recorded",
            "effect.confirmed",
            "step.completed",
            "run.completed");
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class).getFirst().output())
        .contains(json("receipt", "r1"));
    assertThat(entriesOf(id, JournalEntry.StepCompleted.class).getFirst().effects())
        .containsExactly(
            new JournalEntry.EffectRef(INLINE_SURFACE, Keys.idempotencyKey(id, "call")));
    assertThat(snapshot(id).step("call").orElseThrow().output()).contains(json("receipt", "r1"));
  }

  @Test
  void confirmAndCompleteWithAFailureStillJournalsTheConfirmationBeforeTheCompletion() {
    ClaimedEffect c = startInline("inline-retry");
    RunRef id = new RunRef("inline-retry");
    CompletionAck ack =
        journal.confirmAndComplete(
            c.attempt().lease(), INLINE_SURFACE, Optional.of(json("r", "1")), retryableFailure());
    // One iteration only (the spec's default): the retryable failure exhausts it.
    assertThat(ack.reason()).isEqualTo(CompletionReason.RETRIES_EXHAUSTED);
    assertThat(types(id)).contains("effect.confirmed").endsWith("step.completed", "run.completed");
  }

  @Test
  void confirmAndCompleteAfterTheLeaseExpiredIsRefusedAndWritesNothing() {
    StartRun r =
        new StartRun(
            Optional.of(new RunRef("inline-expired")),
            "inline-expired",
            run(lease(agent("call", INLINE_SURFACE), shortLease())),
            Optional.empty(),
            "contract");
    ClaimedEffect c =
        journal.admit(r, Admit.claimedHere(WORKER, LONG_LEASE).electing(INLINE_SURFACE));
    elapse(pastShortLease());
    int n = journal.entries(new RunRef("inline-expired")).size();
    assertRefused(
        () ->
            journal.confirmAndComplete(
                c.attempt().lease(), INLINE_SURFACE, Optional.of(json("r", "1")), ok()),
        ErrorCode.LEASE_CONFLICT);
    assertThat(journal.entries(new RunRef("inline-expired"))).hasSize(n);
  }

  @Test
  void confirmAndCompleteWithoutThisAttemptsElectionIsRefusedAndWritesNothing() {
    RunRef id = start(run(agent("a", "/x", "/y")));
    ClaimedAttempt a = claimOne();
    int n = journal.entries(id).size();
    assertRefused(
        () -> journal.confirmAndComplete(a.lease(), "/x", Optional.empty(), ok()),
        ErrorCode.EFFECT_NOT_RECORDED);
    journal.recordEffect(a.lease(), "/x");
    journal.recordEffect(a.lease(), "/y");
    assertRefused(
        () -> journal.confirmAndComplete(a.lease(), "/x", Optional.empty(), ok()),
        ErrorCode.EFFECT_UNCONFIRMED);
    assertThat(journal.entries(id)).hasSize(n + 2);
  }

  @Test
  void confirmAndCompleteSuspendingOnARunThatIsNotAChildIsRefusedAndWritesNothing() {
    ClaimedEffect c = startInline("inline-suspend-stranger");
    RunRef id = new RunRef("inline-suspend-stranger");
    RunRef stranger = start(run(command("s", "true")));
    List<JournalRecord> before = journal.entries(id);
    assertRefused(
        () ->
            journal.confirmAndComplete(
                c.attempt().lease(),
                INLINE_SURFACE,
                Optional.of(json("r", "lost")),
                new StepOutcome.Suspended(stranger, Duration.ofHours(1))),
        ErrorCode.INVALID_INPUT);
    assertThat(journal.entries(id)).isEqualTo(before);
    journal.confirmAndComplete(c.attempt().lease(), INLINE_SURFACE, Optional.empty(), ok());
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class).getFirst().output()).isEmpty();
  }

  @Test
  void aRunWatchWakesWhenTheWatchedRunCompletes() throws Exception {
    ClaimedEffect c = startInline("inline-watch");
    try (RunWatch watch = journal.watchRun(new RunRef("inline-watch"))) {
      journal.confirmAndComplete(c.attempt().lease(), INLINE_SURFACE, Optional.empty(), ok());
      assertThat(watch.await(Duration.ofSeconds(20))).isTrue();
    }
  }

  @Test
  void aRunWatchTimesOutWhenTheRunDoesNotChange() throws Exception {
    startInline("inline-quiet");
    try (RunWatch watch = journal.watchRun(new RunRef("inline-quiet"))) {
      assertThat(watch.await(Duration.ofMillis(50))).isFalse();
    }
  }

  // ---- batched lease renewal and the reconciler's and claimer's timing (perf-lease)

  @Test
  void renewLeasesRenewsTheLiveLeasesAndRefusesEachOtherWithItsCodeWritingNothingForIt() {
    start(run(agent("live")));
    LeaseToken live = claimOne().lease();
    ClaimedAttempt expiring = expiringAttempt(2);
    RunRef endedRun = start(run(agent("ended")));
    LeaseToken ended = claimOne().lease();
    journal.cancelRun(endedRun, "test");
    LeaseToken forged = new LeaseToken(live.runId(), live.stepId(), live.attempt(), "lease_forged");
    LeaseToken unknown = new LeaseToken(new RunRef("nope"), "a", 1, "lease_x");
    elapse(pastShortLease());
    List<JournalRecord> expiringBefore = journal.entries(expiring.lease().runId());

    LeaseRenewals answer =
        journal.renewLeases(List.of(live, expiring.lease(), ended, forged, unknown));

    assertThat(answer.renewed()).containsOnlyKeys(live);
    assertThat(answer.deadline(live).orElseThrow()).isAfter(claimedDeadline(live));
    assertThat(answer.refused())
        .containsExactlyInAnyOrderEntriesOf(
            java.util.Map.of(
                expiring.lease(),
                ErrorCode.LEASE_CONFLICT,
                ended,
                ErrorCode.RUN_TERMINAL,
                forged,
                ErrorCode.LEASE_CONFLICT,
                unknown,
                ErrorCode.RUN_NOT_FOUND));
    assertThat(journal.entries(expiring.lease().runId())).isEqualTo(expiringBefore);
    assertThat(stepStatus(expiring.lease().runId(), "a")).isEqualTo(StepStatus.RUNNING);
    assertThat(journal.complete(live, ok()).disposition()).isEqualTo(Disposition.STEP_DONE);
  }

  /** The deadline the claim granted, from the attempt's journal entry. */
  private Instant claimedDeadline(LeaseToken lease) {
    return entriesOf(lease.runId(), JournalEntry.StepAttemptStarted.class).stream()
        .filter(e -> e.stepId().equals(lease.stepId()) && e.attempt() == lease.attempt())
        .findFirst()
        .orElseThrow()
        .leaseDeadline();
  }

  @Test
  void renewLeasesOfNoLeasesAnswersNothing() {
    assertThat(journal.renewLeases(List.of())).isEqualTo(LeaseRenewals.none());
  }

  @Test
  void aLeaseRenewedInABatchIsFencedByTheJournalClockLikeAHeartbeat() {
    ClaimedAttempt a = expiringAttempt(2);
    elapse(Duration.ofMillis(50));
    Instant renewed = journal.renewLeases(List.of(a.lease())).deadline(a.lease()).orElseThrow();
    assertThat(renewed).isAfter(a.leaseDeadline());

    elapse(pastShortLease());

    assertThat(journal.renewLeases(List.of(a.lease())).refusal(a.lease()))
        .contains(ErrorCode.LEASE_CONFLICT);
    assertRefused(() -> journal.complete(a.lease(), ok()), ErrorCode.LEASE_CONFLICT);
    assertThat(journal.expireLeases())
        .containsExactly(new ExpiredAttempt(a.lease(), Disposition.RETRY));
  }

  @Test
  void theNextLeaseDeadlineIsTheEarliestRunningAttemptsAndZeroOnceItPassed() {
    assertThat(journal.untilNextLeaseDeadline()).isEmpty();
    start(run(agent("long")));
    claimOne();
    assertThat(journal.untilNextLeaseDeadline().orElseThrow())
        .isPositive()
        .isLessThanOrEqualTo(LONG_LEASE);
    ClaimedAttempt expiring = expiringAttempt(2);
    assertThat(journal.untilNextLeaseDeadline().orElseThrow())
        .isPositive()
        .isLessThanOrEqualTo(shortLease());

    elapse(pastShortLease());

    assertThat(journal.untilNextLeaseDeadline()).contains(Duration.ZERO);
    assertThat(journal.expireLeases()).hasSize(1);
    assertThat(journal.untilNextLeaseDeadline().orElseThrow())
        .isPositive()
        .isLessThanOrEqualTo(LONG_LEASE);
    journal.cancelRun(expiring.lease().runId(), "test");
  }

  @Test
  void theNextClaimableTimeIsTheEarliestBackoffAheadOfAStepTheRequestCouldClaim() {
    BackoffPolicy slow = new BackoffPolicy(60_000, 60_000, 1.0, 0);
    start(run(Specs.retry(iterations(agent("a"), 3), slow)));
    ClaimRequest agents =
        new ClaimRequest(WORKER, Set.of(StepKind.AGENT), 1, LONG_LEASE, Optional.empty());
    ClaimRequest commands =
        new ClaimRequest(WORKER, Set.of(StepKind.DETERMINISTIC), 1, LONG_LEASE, Optional.empty());
    assertThat(journal.untilNextClaimable(agents)).as("ready now: nothing to wait for").isEmpty();

    journal.complete(claimOne().lease(), retryableFailure());

    assertThat(journal.untilNextClaimable(agents).orElseThrow())
        .isPositive()
        .isLessThanOrEqualTo(Duration.ofMillis(60_000));
    assertThat(journal.untilNextClaimable(commands)).isEmpty();
    ClaimRequest otherRoute =
        new ClaimRequest(
            WORKER, Set.of(StepKind.AGENT), 1, LONG_LEASE, Optional.of(Set.of("no-such-route")));
    assertThat(journal.untilNextClaimable(otherRoute)).isEmpty();
  }

  // ---- suspended bodies (an attempt given back while the body waits on a child run)

  private RunRef childOf(RunRef parent, String id, RunSpec spec) {
    RunRef child = new RunRef(id);
    journal.admit(
        new StartRun(Optional.of(child), "key-" + id, spec, Optional.of(parent), "flow:root"),
        Admit.queued());
    return child;
  }

  @Test
  void aSuspendedAttemptIsReadyAgainWhenItsChildEndsAndUsesNoIteration() {
    RunRef parent = start(run(iterations(agent("root"), 2)));
    ClaimedAttempt first = claimOne();
    RunRef child = childOf(parent, "child-suspend-1", run(command("c", "true")));
    CompletionAck ack =
        journal.complete(first.lease(), new StepOutcome.Suspended(child, Duration.ofHours(1)));
    assertThat(ack.reason()).isEqualTo(CompletionReason.SUSPENDED);
    assertThat(ack.disposition()).isEqualTo(Disposition.RETRY);
    assertThat(ack.nextAttemptAt()).isPresent();
    assertThat(stepStatus(parent, "root")).isEqualTo(StepStatus.READY);
    assertThat(claim(1, StepKind.AGENT)).as("no attempt before the child ends").isEmpty();

    ClaimedAttempt c = claimOne();
    assertThat(c.lease().runId()).isEqualTo(child);
    journal.complete(c.lease(), ok());

    ClaimedAttempt second = claimOne();
    assertThat(second.lease().runId()).isEqualTo(parent);
    assertThat(second.lease().attempt()).isEqualTo(2);
    // Attempt 2 of 2 fails retryably: the suspension used no iteration, so it is retried.
    assertThat(journal.complete(second.lease(), retryableFailure()).disposition())
        .isEqualTo(Disposition.RETRY);
    List<JournalEntry.StepCompleted> ends = entriesOf(parent, JournalEntry.StepCompleted.class);
    assertThat(ends.getFirst().reason()).isEqualTo(CompletionReason.SUSPENDED);
    assertThat(ends.getFirst().disposition()).isEqualTo(Disposition.RETRY);
    assertThat(ends.getFirst().nextAttemptAt()).isEqualTo(ack.nextAttemptAt());
  }

  @Test
  void suspendingOnAChildThatHasEndedMakesTheStepReadyAtOnce() {
    RunRef parent = start(run(agent("root")));
    ClaimedAttempt first = claimOne();
    RunRef child = childOf(parent, "child-suspend-2", run(command("c", "true")));
    ClaimedAttempt c = claim(1, StepKind.DETERMINISTIC).getFirst();
    journal.complete(c.lease(), ok());
    journal.complete(first.lease(), new StepOutcome.Suspended(child, Duration.ofHours(1)));
    ClaimedAttempt second = claimOne();
    assertThat(second.lease().runId()).isEqualTo(parent);
    assertThat(second.lease().attempt()).isEqualTo(2);
  }

  @Test
  void aChildThatParksWakesItsSuspendedParentToo() {
    RunRef parent = start(run(agent("root")));
    ClaimedAttempt first = claimOne();
    RunRef child = childOf(parent, "child-suspend-3", run(agent("c")));
    journal.complete(first.lease(), new StepOutcome.Suspended(child, Duration.ofHours(1)));
    ClaimedAttempt c = claimOne();
    assertThat(c.lease().runId()).isEqualTo(child);
    journal.complete(
        c.lease(),
        new StepOutcome.Parked(
            CompletionReason.WORKER_ERROR, ErrorCode.EFFECT_OUTCOME_UNKNOWN, json("why", "?")));
    assertThat(claimOne().lease().runId()).isEqualTo(parent);
  }

  @Test
  void suspendingOnARunThatIsNotAChildIsRefusedAndWritesNothing() {
    RunRef parent = start(run(agent("root")));
    ClaimedAttempt first = claimOne();
    RunRef stranger = start(run(command("s", "true")));
    List<String> before = types(parent);
    assertRefused(
        () ->
            journal.complete(
                first.lease(), new StepOutcome.Suspended(stranger, Duration.ofHours(1))),
        ErrorCode.INVALID_INPUT);
    assertThat(types(parent)).isEqualTo(before);
    assertThat(stepStatus(parent, "root")).isEqualTo(StepStatus.RUNNING);
    journal.complete(first.lease(), ok());
    assertThat(snapshot(parent).status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  @Test
  void cancelingARunCancelsTheOpenChildRunItsSuspendedBodyAwaitsAndLeavesEndedOnes() {
    RunRef parent = start(run(agent("root")));
    ClaimedAttempt first = claimOne();
    RunRef ended = childOf(parent, "child-cancel-ended", run(command("c", "true")));
    ClaimedAttempt e = claim(1, StepKind.DETERMINISTIC).getFirst();
    journal.complete(e.lease(), ok());
    RunRef open = childOf(parent, "child-cancel-open", run(agent("c")));
    ClaimedAttempt o = claimOne();
    assertThat(o.lease().runId()).isEqualTo(open);
    journal.complete(first.lease(), new StepOutcome.Suspended(open, Duration.ofHours(1)));

    CancelOutcome canceled = journal.cancelRun(parent, "operator");

    assertThat(canceled.status()).isEqualTo(RunStatus.CANCELED);
    assertThat(snapshot(open).status()).isEqualTo(RunStatus.CANCELED);
    assertThat(stepStatus(open, "c")).isEqualTo(StepStatus.CANCELED);
    assertThat(entriesOf(open, JournalEntry.RunCancelRequested.class).getFirst().reason())
        .contains(parent.value());
    assertThat(snapshot(ended).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(entriesOf(ended, JournalEntry.RunCancelRequested.class)).isEmpty();
    // The child's worker learns at its next fenced call.
    assertRefused(() -> journal.complete(o.lease(), ok()), ErrorCode.RUN_TERMINAL);
  }

  @Test
  void cancelingARunCancelsItsOpenGrandchildrenThroughItsChildFlowRun() {
    RunRef parent = start(run(agent("root")));
    ClaimedAttempt first = claimOne();
    RunRef child = childOf(parent, "child-flow-cancel", run(agent("body")));
    ClaimedAttempt c = claimOne();
    assertThat(c.lease().runId()).isEqualTo(child);
    RunRef grandchild = childOf(child, "grandchild-cancel", run(agent("call")));
    journal.complete(c.lease(), new StepOutcome.Suspended(grandchild, Duration.ofHours(1)));
    journal.complete(first.lease(), new StepOutcome.Suspended(child, Duration.ofHours(1)));

    journal.cancelRun(parent, "operator");

    assertThat(snapshot(child).status()).isEqualTo(RunStatus.CANCELED);
    assertThat(snapshot(grandchild).status()).isEqualTo(RunStatus.CANCELED);
    assertThat(entriesOf(grandchild, JournalEntry.RunCancelRequested.class).getFirst().reason())
        .contains(child.value());
  }

  @Test
  void aSuspendedStepIsLookedAtAgainAtItsRecheckTimeWithoutAWakeUp() {
    RunRef parent = start(run(agent("root")));
    ClaimedAttempt first = claimOne();
    RunRef child = childOf(parent, "child-suspend-4", run(agent("c")));
    journal.complete(first.lease(), new StepOutcome.Suspended(child, shortLease()));
    assertThat(claim(1, StepKind.AGENT).stream().map(a -> a.lease().runId()))
        .containsExactly(child);
    elapse(pastShortLease());
    assertThat(claimOne().lease().runId()).isEqualTo(parent);
  }

  // ---- durable timers (a suspension on no child: claimable at its due time)

  @Test
  void aTimerSuspensionMakesTheStepClaimableAtItsDueTimeAndNotBefore() {
    RunRef id = start(run(agent("root")));
    ClaimedAttempt first = claimOne();
    CompletionAck ack = journal.complete(first.lease(), StepOutcome.Suspended.timer(shortLease()));
    assertThat(ack.reason()).isEqualTo(CompletionReason.SUSPENDED);
    assertThat(ack.disposition()).isEqualTo(Disposition.RETRY);
    assertThat(stepStatus(id, "root")).isEqualTo(StepStatus.READY);
    assertThat(claim(1)).as("the timer is not due").isEmpty();
    assertThat(
            journal.untilNextClaimable(
                new ClaimRequest(WORKER, Set.of(StepKind.AGENT), 1, LONG_LEASE)))
        .as("a claimer knows when the timer is due")
        .hasValueSatisfying(d -> assertThat(d).isPositive().isLessThanOrEqualTo(shortLease()));
    elapse(pastShortLease());
    ClaimedAttempt second = claimOne();
    assertThat(second.lease().runId()).isEqualTo(id);
    assertThat(second.lease().attempt()).isEqualTo(2);
  }

  @Test
  void aTimerSuspensionUsesNoIteration() {
    RunRef id = start(run(agent("root")));
    for (int i = 0; i < 3; i++) {
      journal.complete(claimOne().lease(), StepOutcome.Suspended.timer(Duration.ofMillis(1)));
      elapse(Duration.ofMillis(5));
    }
    journal.complete(claimOne().lease(), ok());
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  // ---- task-backed calls (DurableTasks)

  private static final String TASK_SURFACE = "/mcp/jobs/slow";

  private static TaskNote task(String id, String status, String message) {
    return new TaskNote(
        id,
        status,
        Optional.of(message),
        Optional.of(1000L),
        Optional.of(3_600_000L),
        "2026-07-28");
  }

  /** A one-call run claimed, its effect recorded: the attempt that makes the call. */
  private ClaimedAttempt callingAttempt() {
    startCall("task-", "jobs", "slow", Optional.empty());
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), TASK_SURFACE);
    return a;
  }

  @Test
  void aTaskIsJournaledWithItsEffectAndAgainOnlyWhenItsStatusOrMessageChanges() {
    ClaimedAttempt a = callingAttempt();
    RunRef id = a.lease().runId();

    assertThat(journal.recordTask(a.lease(), TASK_SURFACE, task("t-1", "working", "0%"))).isTrue();
    assertThat(journal.recordTask(a.lease(), TASK_SURFACE, task("t-1", "working", "0%")))
        .as("a poll that saw no change writes nothing")
        .isFalse();
    assertThat(journal.recordTask(a.lease(), TASK_SURFACE, task("t-1", "working", "50%"))).isTrue();
    journal.recordTask(a.lease(), TASK_SURFACE, task("t-1", "completed", "done"));
    journal.confirmEffect(a.lease(), TASK_SURFACE, Optional.of(json("ok", "yes")));

    assertThat(types(id))
        .containsSubsequence(
            "effect.recorded", "effect.task", "effect.task", "effect.task", "effect.confirmed");
    List<JournalEntry.EffectTask> notes = entriesOf(id, JournalEntry.EffectTask.class);
    assertThat(notes).hasSize(3);
    assertThat(notes.getFirst().task()).isEqualTo(task("t-1", "working", "0%"));
    assertThat(notes.getFirst().idempotencyKey()).isEqualTo(Keys.idempotencyKey(id, "call"));
    assertThat(notes.getFirst().attempt()).isEqualTo(1);
    DurableTasks.StepTask t = DurableTasks.of(journal.entries(id), "call").orElseThrow();
    assertThat(t.latest().status()).isEqualTo("completed");
    assertThat(t.createdAttempt()).isEqualTo(1);
    assertThat(t.surfacePath()).isEqualTo(TASK_SURFACE);
  }

  @Test
  void aTaskNoteIsRefusedWithoutTheAttemptsElectionForAnUnknownStatusOrAnotherTask() {
    RunRef id = start(run(Specs.mcpCall("call", "jobs", "slow", JSON.objectNode())));
    ClaimedAttempt a = claimOne();
    assertRefused(
        () -> journal.recordTask(a.lease(), TASK_SURFACE, task("t-1", "working", "0%")),
        ErrorCode.EFFECT_NOT_RECORDED);
    journal.recordEffect(a.lease(), TASK_SURFACE);
    assertRefused(
        () -> journal.recordTask(a.lease(), TASK_SURFACE, task("t-1", "sleeping", "0%")),
        ErrorCode.INVALID_INPUT);
    journal.recordTask(a.lease(), TASK_SURFACE, task("t-1", "working", "0%"));
    assertRefused(
        () -> journal.recordTask(a.lease(), TASK_SURFACE, task("t-2", "working", "0%")),
        ErrorCode.INVALID_INPUT);
    LeaseToken stale =
        new LeaseToken(id, "call", a.lease().attempt(), a.lease().leaseId() + "-stale");
    assertRefused(
        () -> journal.recordTask(stale, TASK_SURFACE, task("t-1", "working", "1%")),
        ErrorCode.LEASE_CONFLICT);

    assertThat(entriesOf(id, JournalEntry.EffectTask.class)).hasSize(1);
  }

  @Test
  void theNextAttemptOfASuspendedTaskCallTakesTheElectionOverAndNotesTheSameTask() {
    ClaimedAttempt first = callingAttempt();
    RunRef id = first.lease().runId();
    journal.recordTask(first.lease(), TASK_SURFACE, task("t-1", "working", "0%"));
    journal.complete(first.lease(), StepOutcome.Suspended.timer(Duration.ofMillis(1)));
    elapse(Duration.ofMillis(5));

    ClaimedAttempt second = claimOne();
    EffectElection e = journal.recordEffect(second.lease(), TASK_SURFACE);
    assertThat(e.takenOver()).isTrue();
    assertThat(journal.recordTask(second.lease(), TASK_SURFACE, task("t-1", "completed", "done")))
        .isTrue();
    journal.confirmEffect(second.lease(), TASK_SURFACE, Optional.of(json("ok", "yes")));
    journal.complete(second.lease(), ok());

    assertThat(snapshot(id).status()).isEqualTo(RunStatus.SUCCEEDED);
    DurableTasks.StepTask t = DurableTasks.of(journal.entries(id), "call").orElseThrow();
    assertThat(t.createdAttempt()).isEqualTo(1);
    assertThat(t.latest().status()).isEqualTo("completed");
  }

  @Test
  void aTaskStillWorkingWhenItsRunEndsIsOwedACancelUntilOneIsNotedOnce() {
    ClaimedAttempt a = callingAttempt();
    RunRef id = a.lease().runId();
    journal.recordTask(a.lease(), TASK_SURFACE, task("t-owed", "working", "0%"));
    journal.complete(a.lease(), StepOutcome.Suspended.timer(Duration.ofSeconds(30)));
    assertThat(journal.tasksToCancel(10)).as("its run still runs").isEmpty();

    journal.cancelRun(id, "operator");

    assertThat(journal.tasksToCancel(10))
        .containsExactly(new TaskToCancel(id, "call", TASK_SURFACE, "t-owed", "2026-07-28"));
    assertRefused(
        () -> journal.noteTaskCancel(id, "call", "t-other", "run canceled", "reconciler"),
        ErrorCode.INVALID_INPUT);
    assertRefused(
        () -> journal.noteTaskCancel(id, "nope", "t-owed", "run canceled", "reconciler"),
        ErrorCode.STEP_NOT_FOUND);
    assertRefused(
        () ->
            journal.noteTaskCancel(
                new RunRef("no-such-run"), "call", "t-owed", "run canceled", "reconciler"),
        ErrorCode.RUN_NOT_FOUND);
    assertThat(journal.noteTaskCancel(id, "call", "t-owed", "run canceled", "reconciler")).isTrue();
    assertThat(journal.noteTaskCancel(id, "call", "t-owed", "run canceled", "reconciler"))
        .as("once per task")
        .isFalse();

    assertThat(journal.tasksToCancel(10)).isEmpty();
    JournalEntry.EffectTaskCancel note =
        entriesOf(id, JournalEntry.EffectTaskCancel.class).getFirst();
    assertThat(note.surfacePath()).isEqualTo(TASK_SURFACE);
    assertThat(note.by()).isEqualTo("reconciler");
    assertThat(entriesOf(id, JournalEntry.EffectTaskCancel.class)).hasSize(1);
    assertThat(DurableTasks.of(journal.entries(id), "call").orElseThrow().cancelSentAt())
        .isPresent();
  }

  @Test
  void aFinishedTaskIsOwedNoCancelAndTheOldestOwedComesFirst() {
    ClaimedAttempt done = callingAttempt();
    journal.recordTask(done.lease(), TASK_SURFACE, task("t-done", "completed", "done"));
    journal.complete(done.lease(), retryableFailure());
    journal.cancelRun(done.lease().runId(), "operator");
    ClaimedAttempt older = callingAttempt();
    journal.recordTask(older.lease(), TASK_SURFACE, task("t-older", "input_required", "ask"));
    elapse(Duration.ofMillis(5));
    ClaimedAttempt newer = callingAttempt();
    journal.recordTask(newer.lease(), TASK_SURFACE, task("t-newer", "working", "0%"));
    journal.cancelRun(newer.lease().runId(), "operator");
    journal.cancelRun(older.lease().runId(), "operator");

    assertThat(journal.tasksToCancel(10).stream().map(TaskToCancel::taskId))
        .containsExactly("t-older", "t-newer");
    assertThat(journal.tasksToCancel(1).stream().map(TaskToCancel::taskId))
        .containsExactly("t-older");
  }

  /**
   * A call run whose step has {@code maxIterations} and a short lease, claimed, its effect recorded
   * and its task journaled as {@code note}: the attempt that made the call.
   */
  private ClaimedAttempt taskCallAttempt(StepSpec call, TaskNote note) {
    start(run(lease(call, shortLease())));
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), TASK_SURFACE);
    journal.recordTask(a.lease(), TASK_SURFACE, note);
    return a;
  }

  /** The task call's next attempt, claimed and left to expire; answers what the expiry decided. */
  private Disposition nextAttemptExpires() {
    elapse(Duration.ofMillis(5));
    ClaimedAttempt a = claimOne();
    elapse(pastShortLease());
    List<ExpiredAttempt> expired = journal.expireLeases();
    assertThat(expired).extracting(ExpiredAttempt::lease).containsExactly(a.lease());
    return expired.getFirst().disposition();
  }

  private static TaskNote taskNote(String status, Optional<Long> ttlMs) {
    return new TaskNote("t-1", status, Optional.empty(), Optional.of(1000L), ttlMs, "2026-07-28");
  }

  @Test
  void anAttemptThatExpiresWhileItsTaskIsLiveUsesNoIterationUntilTheTasksTtlHasPassed() {
    StepSpec call = iterations(Specs.mcpCall("call", "jobs", "slow", JSON.objectNode()), 2);
    ClaimedAttempt first = taskCallAttempt(call, taskNote("working", Optional.of(10_000L)));
    RunRef id = first.lease().runId();
    elapse(pastShortLease());
    assertThat(journal.expireLeases())
        .containsExactly(new ExpiredAttempt(first.lease(), Disposition.RETRY));
    for (int i = 2; i <= 4; i++) {
      assertThat(nextAttemptExpires()).as("expiry of attempt %d", i).isEqualTo(Disposition.RETRY);
      assertThat(stepStatus(id, "call")).isEqualTo(StepStatus.READY);
    }
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.RUNNING);
    assertThat(entriesOf(id, JournalEntry.StepCompleted.class))
        .extracting(JournalEntry.StepCompleted::reason)
        .containsOnly(CompletionReason.LEASE_EXPIRED);

    elapse(Duration.ofSeconds(10));
    assertThat(nextAttemptExpires())
        .as("past the ttl, the first counted")
        .isEqualTo(Disposition.RETRY);
    // The call was sent (its task proves it) and never confirmed: its outcome is unknown.
    assertThat(nextAttemptExpires()).as("the second counted").isEqualTo(Disposition.PARK);
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.PARKED);
    assertThat(snapshot(id).step("call").orElseThrow().lastReason())
        .contains(CompletionReason.LEASE_EXPIRED);
  }

  @Test
  void aLiveTaskWithoutATtlGivesExpiredAttemptsBackUntilTheCallsTimeoutHasPassed() {
    StepSpec call =
        Specs.timeout(
            iterations(Specs.mcpCall("call", "jobs", "slow", JSON.objectNode()), 1),
            Duration.ofSeconds(5));
    ClaimedAttempt first = taskCallAttempt(call, taskNote("input_required", Optional.empty()));
    RunRef id = first.lease().runId();
    elapse(pastShortLease());
    assertThat(journal.expireLeases())
        .containsExactly(new ExpiredAttempt(first.lease(), Disposition.RETRY));
    assertThat(nextAttemptExpires()).isEqualTo(Disposition.RETRY);

    elapse(Duration.ofSeconds(5));
    // Counted, and the last: the call's outcome is unknown, so it parks rather than fails.
    assertThat(nextAttemptExpires()).isEqualTo(Disposition.PARK);
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.PARKED);
  }

  @Test
  void anAttemptThatExpiresAfterItsTasksEndWasJournaledUsesAnIteration() {
    StepSpec call = iterations(Specs.mcpCall("call", "jobs", "slow", JSON.objectNode()), 1);
    ClaimedAttempt first = taskCallAttempt(call, taskNote("working", Optional.of(60_000L)));
    journal.recordTask(first.lease(), TASK_SURFACE, taskNote("completed", Optional.of(60_000L)));
    elapse(pastShortLease());
    // Counted, and the last: the task's result was never confirmed, so the step parks.
    assertThat(journal.expireLeases())
        .containsExactly(new ExpiredAttempt(first.lease(), Disposition.PARK));
    assertThat(snapshot(first.lease().runId()).status()).isEqualTo(RunStatus.PARKED);
  }

  // ---- payload limits (PayloadLimits.DEFAULTS, measured as UTF-8 JSON)

  /** {@code {"blob":"…"}} of exactly {@code bytes} bytes of JSON, in two-byte characters. */
  protected static JsonNode payloadOf(long bytes) {
    long text = bytes - "{\"blob\":\"\"}".length();
    String blob = "\u00e9".repeat((int) (text / 2)) + (text % 2 == 1 ? "x" : "");
    JsonNode p = JSON.objectNode().put("blob", blob);
    assertThat(PayloadLimits.encodedSize(p)).isEqualTo(bytes);
    return p;
  }

  @Test
  void aRunInputPastItsLimitIsRefusedPayloadTooLargeWithNothingWritten() {
    long bound = PayloadLimits.DEFAULTS.maxRunInputBytes();
    RunRef id = new RunRef("big-" + System.nanoTime());
    StartRun big =
        new StartRun(
            Optional.of(id),
            id.value(),
            run(Specs.input(agent("a"), payloadOf(bound + 1))),
            Optional.empty(),
            "api");

    assertThatThrownBy(() -> journal.admit(big, Admit.queued()))
        .isInstanceOf(FlowsException.class)
        .satisfies(
            e -> {
              FlowsException f = (FlowsException) e;
              assertThat(f.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
              assertThat(f.getMessage())
                  .contains("maxRunInputBytes")
                  .contains(String.valueOf(bound + 1))
                  .contains(String.valueOf(bound));
              assertThat(f.fix()).isPresent();
            });
    assertThat(journal.run(id)).isEmpty();
    assertThat(claim(1)).isEmpty();

    RunRef atTheBound = start(run(Specs.input(agent("a"), payloadOf(bound))));
    assertThat(claimOne().lease().runId()).isEqualTo(atTheBound);
  }

  @Test
  void aSignalPayloadPastItsLimitIsRefusedAndTheRunsJournalIsUnchanged() {
    long bound = PayloadLimits.DEFAULTS.maxSignalBytes();
    RunRef id = start(run(agent("root", "/memo/*")));
    List<String> before = types(id);

    assertRefused(
        () -> journal.sendSignal(id, "approve", payloadOf(bound + 1), Optional.of("k")),
        ErrorCode.PAYLOAD_TOO_LARGE);

    assertThat(types(id)).isEqualTo(before);
    assertThat(journal.sendSignal(id, "approve", payloadOf(bound), Optional.of("k")))
        .isEqualTo(new SignalSent(id, "approve", 1, false));
  }

  @Test
  void anInputAnswerPastItsLimitIsRefusedAndTheStepStaysParked() {
    long bound = PayloadLimits.DEFAULTS.maxAnswerBytes();
    RunRef id = parkedForInput(Optional.empty(), false);
    List<String> before = types(id);

    assertRefused(
        () -> journal.answerInput(id, "call", new InputAnswer.Accept(payloadOf(bound + 1)), "ops"),
        ErrorCode.PAYLOAD_TOO_LARGE);

    assertThat(types(id)).isEqualTo(before);
    assertThat(stepStatus(id, "call")).isEqualTo(StepStatus.PARKED);
    assertThat(entriesOf(id, JournalEntry.StepAnswered.class)).isEmpty();
  }

  @Test
  void aJournalOpenedWithLowerLimitsRefusesASmallerPayloadWithNothingWritten() {
    long bound = 8192;
    journal =
        newJournal(
            PayloadLimits.DEFAULTS
                .withMaxRunInputBytes(bound)
                .withMaxSignalBytes(bound)
                .withMaxAnswerBytes(bound));
    RunRef id = new RunRef("lowered-" + System.nanoTime());
    StartRun big =
        new StartRun(
            Optional.of(id),
            id.value(),
            run(Specs.input(agent("a"), payloadOf(bound + 1))),
            Optional.empty(),
            "api");
    assertThatThrownBy(() -> journal.admit(big, Admit.queued()))
        .isInstanceOf(FlowsException.class)
        .hasMessageContaining("maxRunInputBytes (" + bound + " bytes)")
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
    assertThat(journal.run(id)).isEmpty();

    RunRef waiting = start(run(agent("root", "/memo/*")));
    List<String> before = types(waiting);
    assertRefused(
        () -> journal.sendSignal(waiting, "approve", payloadOf(bound + 1), Optional.of("k")),
        ErrorCode.PAYLOAD_TOO_LARGE);
    assertThat(types(waiting)).isEqualTo(before);
    assertThat(journal.sendSignal(waiting, "approve", payloadOf(bound), Optional.of("k")).seq())
        .isEqualTo(1);
  }

  @Test
  void anAnswerPastALoweredLimitIsRefusedAndTheStepStaysParked() {
    long bound = 8192;
    journal = newJournal(PayloadLimits.DEFAULTS.withMaxAnswerBytes(bound));
    RunRef id = parkedForInput(Optional.empty(), false);
    List<String> before = types(id);

    assertRefused(
        () -> journal.answerInput(id, "call", new InputAnswer.Accept(payloadOf(bound + 1)), "ops"),
        ErrorCode.PAYLOAD_TOO_LARGE);

    assertThat(types(id)).isEqualTo(before);
    assertThat(stepStatus(id, "call")).isEqualTo(StepStatus.PARKED);
  }

  // ---- signals (a mailbox per run and name)

  @Test
  void signalsSentBeforeTheWaitAreTakenInOrderEachOnce() {
    RunRef id = start(run(agent("root", "/memo/*")));
    assertThat(journal.sendSignal(id, "approve", json("n", "1"), Optional.empty()))
        .isEqualTo(new SignalSent(id, "approve", 1, false));
    journal.sendSignal(id, "other", json("n", "x"), Optional.empty());
    assertThat(journal.sendSignal(id, "approve", json("n", "2"), Optional.empty()).seq())
        .isEqualTo(2);
    ClaimedAttempt a = claimOne();
    assertThat(journal.takeSignal(a.lease(), "approve", "/memo/1"))
        .contains(Signals.delivered("approve", 1, json("n", "1")));
    assertThat(journal.takeSignal(a.lease(), "approve", "/memo/2"))
        .contains(Signals.delivered("approve", 2, json("n", "2")));
    assertThat(journal.takeSignal(a.lease(), "approve", "/memo/3")).isEmpty();
    // The effect it was delivered at is journaled like any memo.
    assertThat(entriesOf(id, JournalEntry.EffectConfirmed.class))
        .extracting(JournalEntry.EffectConfirmed::surfacePath)
        .containsExactly("/memo/1", "/memo/2");
  }

  @Test
  void takingASignalAtAPlaceThatHasOneAnswersItAndTakesNoOther() {
    RunRef id = start(run(iterations(lease(agent("root", "/memo/*"), shortLease()), 3)));
    journal.sendSignal(id, "approve", json("n", "1"), Optional.empty());
    journal.sendSignal(id, "approve", json("n", "2"), Optional.empty());
    ClaimedAttempt a = claimOne();
    journal.takeSignal(a.lease(), "approve", "/memo/1/outcome");
    elapse(pastShortLease());
    journal.expireLeases();
    elapse(pastShortLease());
    ClaimedAttempt b = claimOne();
    assertThat(journal.takeSignal(b.lease(), "approve", "/memo/1/outcome"))
        .contains(Signals.delivered("approve", 1, json("n", "1")));
    assertThat(journal.takeSignal(b.lease(), "approve", "/memo/2/outcome"))
        .contains(Signals.delivered("approve", 2, json("n", "2")));
  }

  @Test
  void aSignalSentTwiceWithOneKeyIsKeptOnce() {
    RunRef id = start(run(agent("root", "/memo/*")));
    SignalSent first = journal.sendSignal(id, "approve", json("n", "1"), Optional.of("k"));
    SignalSent again = journal.sendSignal(id, "approve", json("n", "2"), Optional.of("k"));
    assertThat(first.deduped()).isFalse();
    assertThat(again).isEqualTo(new SignalSent(id, "approve", 1, true));
    ClaimedAttempt a = claimOne();
    assertThat(journal.takeSignal(a.lease(), "approve", "/memo/1")).isPresent();
    assertThat(journal.takeSignal(a.lease(), "approve", "/memo/2")).isEmpty();
  }

  @Test
  void aSignalToAnEndedOrUnknownRunOrWithABadNameIsRefused() {
    RunRef id = start(run(agent("root")));
    journal.complete(claimOne().lease(), ok());
    assertRefused(
        () -> journal.sendSignal(id, "approve", json("n", "1"), Optional.empty()),
        ErrorCode.RUN_TERMINAL);
    assertRefused(
        () ->
            journal.sendSignal(
                new RunRef("no-such-run"), "approve", json("n", "1"), Optional.empty()),
        ErrorCode.RUN_NOT_FOUND);
    RunRef open = start(run(agent("root")));
    assertRefused(
        () -> journal.sendSignal(open, "no spaces", json("n", "1"), Optional.empty()),
        ErrorCode.INVALID_INPUT);
    assertRefused(
        () -> journal.sendSignal(open, "approve", json("n", "1"), Optional.of("")),
        ErrorCode.INVALID_INPUT);
  }

  @Test
  void aKeyedSignalAlreadySentIsDedupedAfterTheRunEnded() {
    RunRef id = start(run(agent("root", "/memo/*")));
    SignalSent first = journal.sendSignal(id, "approve", json("n", "1"), Optional.of("ticket-42"));
    ClaimedAttempt a = claimOne();
    assertThat(journal.takeSignal(a.lease(), "approve", "/memo/1")).isPresent();
    journal.complete(a.lease(), ok());
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(journal.sendSignal(id, "approve", json("n", "1"), Optional.of("ticket-42")))
        .isEqualTo(new SignalSent(id, "approve", first.seq(), true));
    assertRefused(
        () -> journal.sendSignal(id, "approve", json("n", "1"), Optional.of("ticket-43")),
        ErrorCode.RUN_TERMINAL);
  }

  @Test
  void aSignalToAnEndedRunSaysTheRunHasEndedAndNotToStartItUnderAnotherId() {
    RunRef id = start(run(agent("root")));
    journal.complete(claimOne().lease(), ok());
    assertThatThrownBy(() -> journal.sendSignal(id, "approve", json("n", "1"), Optional.empty()))
        .isInstanceOf(FlowsException.class)
        .satisfies(
            e -> {
              FlowsException f = (FlowsException) e;
              assertThat(f.code()).isEqualTo(ErrorCode.RUN_TERMINAL);
              assertThat(f.getMessage())
                  .contains("run " + id.value() + " has already ended (succeeded)")
                  .contains("signal");
              assertThat(f.fix().orElseThrow()).doesNotContain("different id");
            });
  }

  @Test
  void aSignalReadiesTheBodySuspendedForItAtOnce() {
    RunRef id = start(run(agent("root", "/memo/*")));
    ClaimedAttempt first = claimOne();
    journal.complete(first.lease(), StepOutcome.Suspended.signal("approve", Duration.ofHours(1)));
    assertThat(claim(1)).as("nothing sent yet").isEmpty();
    journal.sendSignal(id, "approve", json("n", "1"), Optional.empty());
    ClaimedAttempt second = claimOne();
    assertThat(second.lease().runId()).isEqualTo(id);
    assertThat(journal.takeSignal(second.lease(), "approve", "/memo/1")).isPresent();
  }

  @Test
  void suspendingForASignalThatIsAlreadyPendingMakesTheStepReadyAtOnce() {
    RunRef id = start(run(agent("root", "/memo/*")));
    ClaimedAttempt first = claimOne();
    journal.sendSignal(id, "approve", json("n", "1"), Optional.empty());
    journal.complete(first.lease(), StepOutcome.Suspended.signal("approve", Duration.ofHours(1)));
    assertThat(claimOne().lease().runId()).isEqualTo(id);
  }

  @Test
  void aTakeRefusedForALostLeaseLeavesTheSignalPending() {
    ClaimedAttempt a = expiringAttempt(2, "/memo/*");
    RunRef id = a.lease().runId();
    journal.sendSignal(id, "approve", json("n", "1"), Optional.empty());
    elapse(pastShortLease());
    assertRefused(
        () -> journal.takeSignal(a.lease(), "approve", "/memo/1"), ErrorCode.LEASE_CONFLICT);
    journal.expireLeases();
    elapse(pastShortLease());
    ClaimedAttempt b = claimOne();
    assertThat(journal.takeSignal(b.lease(), "approve", "/memo/1"))
        .contains(Signals.delivered("approve", 1, json("n", "1")));
  }

  // ---- shared instruction subtrees (intern: one inventory instance for many waiting runs)

  private static StepSpec bodyWithInventory(String classPath) {
    com.fasterxml.jackson.databind.node.ObjectNode instruction =
        JSON.objectNode().put("type", "flow").put("flow", "shared");
    com.fasterxml.jackson.databind.node.ObjectNode server =
        instruction.putObject("mcp").putObject("stdio");
    server
        .putObject("connection")
        .put("transport", "stdio")
        .put("command", "java")
        .putArray("args")
        .add("-cp")
        .add(classPath);
    server.putObject("tools").putObject("sleep").put("readOnlyHint", true);
    return new StepSpec(
        "body",
        List.of(),
        JSON.nullNode(),
        1,
        Specs.FAST_RETRY,
        java.util.OptionalLong.empty(),
        java.util.OptionalLong.empty(),
        new StepBody.Agent(instruction, dev.flows.kernel.spec.RecoveryMode.INSPECT, List.of()));
  }

  @Test
  void claimedAttemptsOfRunsWithEqualInventoriesShareOneInventoryInstanceWithItsValuesUnchanged() {
    String classPath = "/opt/contract/" + System.nanoTime() + "/a.jar:/opt/b.jar";
    StepSpec written = bodyWithInventory(classPath);
    start(run(bodyWithInventory(classPath)));
    start(run(bodyWithInventory(classPath)));

    List<ClaimedAttempt> claimed = claim(2);

    assertThat(claimed).hasSize(2);
    JsonNode first = ((StepBody.Agent) claimed.get(0).step().body()).instruction();
    JsonNode second = ((StepBody.Agent) claimed.get(1).step().body()).instruction();
    assertThat(second.get("mcp")).isSameAs(first.get("mcp"));
    assertThat(first).isEqualTo(((StepBody.Agent) written.body()).instruction());
    assertThat(second.toString()).isEqualTo(first.toString());
  }

  // ---- inline call ends in one journal statement (perf-mcp3, V9)

  @Test
  void confirmAndCompleteOfAStepAnotherWaitsOnReadiesItJournalsNoRunEndAndKeepsTheEntryOrder() {
    RunRef id = start(run(agent("a", "/x"), dependsOn(agent("b"), "a")));
    ClaimedAttempt a = claimOne();
    journal.recordEffect(a.lease(), "/x");
    CompletionAck ack =
        journal.confirmAndComplete(
            a.lease(),
            "/x",
            Optional.of(json("receipt", "x1")),
            new StepOutcome.Succeeded(json("receipt", "x1")));
    assertThat(ack.runStatus()).isEqualTo(RunStatus.RUNNING);
    assertThat(stepStatus(id, "b")).isEqualTo(StepStatus.READY);
    assertThat(types(id))
        .containsExactly(
            "run.spawned",
            "step.attempt.started",
            "effect.recorded",
            "effect.confirmed",
            "step.completed");
    assertThat(entriesOf(id, JournalEntry.StepCompleted.class).getFirst().effects())
        .containsExactly(new JournalEntry.EffectRef("/x", Keys.idempotencyKey(id, "a")));
    assertThat(snapshot(id).status()).isEqualTo(RunStatus.RUNNING);
  }

  @Test
  void anInlineStepIsNeverOfferedToClaimersAndItsLeaseExpiresLikeAClaimedOne() {
    StartRun r =
        new StartRun(
            Optional.of(new RunRef("inline-expires")),
            "inline-expires",
            run(lease(agent("call", INLINE_SURFACE), shortLease())),
            Optional.empty(),
            "contract");
    ClaimedEffect c =
        journal.admit(r, Admit.claimedHere(WORKER, LONG_LEASE).electing(INLINE_SURFACE));
    assertThat(claim(5)).isEmpty();
    elapse(pastShortLease());
    assertThat(journal.expireLeases())
        .extracting(ExpiredAttempt::lease)
        .containsExactly(c.attempt().lease());
    assertThat(types(new RunRef("inline-expires"))).contains("step.completed");
  }

  // ---- retention

  private PruneReport prune(Duration olderThan, java.util.OptionalInt limit, boolean dryRun) {
    return journal.prune(new PruneRequest(olderThan, limit, "contract", dryRun));
  }

  /** Claims and succeeds every claimable step until none is left. */
  private void succeedEverythingClaimable() {
    for (List<ClaimedAttempt> c = claim(10); !c.isEmpty(); c = claim(10)) {
      c.forEach(a -> journal.complete(a.lease(), ok()));
    }
  }

  private RunRef startChild(RunRef parent, String key) {
    return journal
        .admit(
            new StartRun(
                Optional.empty(), key, run(command("c", "true")), Optional.of(parent), "test"),
            Admit.queued())
        .runId();
  }

  @Test
  void pruneRemovesEndedRootsPastThePeriodWithTheirChildrenAndKeepsEveryOtherRun() {
    RunRef old = start(run(command("a", "true")));
    RunRef oldChild = startChild(old, "old-child");
    journal.sendSignal(old, "never-taken", json("n", "1"), Optional.empty());
    succeedEverythingClaimable();
    RunRef parked = start(run(agent("a", "/x")));
    parkUnknown(claimOne());
    RunRef running = start(run(command("a", "true")));
    RunRef endedChildOfRunning = startChild(running, "running-child");
    claim(10).stream()
        .filter(a -> a.lease().runId().equals(endedChildOfRunning))
        .forEach(a -> journal.complete(a.lease(), ok()));
    long entries = journal.entries(old).size() + journal.entries(oldChild).size();
    elapse(Duration.ofDays(2));
    RunRef recent = start(run(command("a", "true")));
    succeedEverythingClaimable();
    assertThat(snapshot(old).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(snapshot(endedChildOfRunning).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(snapshot(running).status()).isEqualTo(RunStatus.RUNNING);

    PruneReport report = prune(Duration.ofDays(1), java.util.OptionalInt.empty(), false);

    assertThat(report.roots()).containsExactly(old);
    assertThat(report.runs()).isEqualTo(2);
    assertThat(report.entries()).isEqualTo(entries);
    assertThat(report.pruneId()).isPresent();
    assertThat(journal.run(old)).isEmpty();
    assertThat(journal.run(oldChild)).isEmpty();
    assertThat(journal.entries(old)).isEmpty();
    assertThat(journal.entries(oldChild)).isEmpty();
    for (RunRef kept : List.of(parked, running, endedChildOfRunning, recent)) {
      assertThat(journal.run(kept)).as("kept " + kept).isPresent();
      assertThat(journal.entries(kept)).as("entries of " + kept).isNotEmpty();
    }
    assertThat(prune(Duration.ofDays(1), java.util.OptionalInt.empty(), false).empty()).isTrue();
  }

  @Test
  void aDryRunPruneAnswersWhatWouldGoAndRemovesNothing() {
    RunRef old = start(run(command("a", "true")));
    succeedEverythingClaimable();
    List<JournalRecord> before = journal.entries(old);
    elapse(Duration.ofDays(2));

    PruneReport dry = prune(Duration.ofDays(1), java.util.OptionalInt.empty(), true);

    assertThat(dry.dryRun()).isTrue();
    assertThat(dry.pruneId()).isEmpty();
    assertThat(dry.roots()).containsExactly(old);
    assertThat(dry.runs()).isEqualTo(1);
    assertThat(dry.entries()).isEqualTo(before.size());
    assertThat(journal.run(old)).isPresent();
    assertThat(journal.entries(old)).isEqualTo(before);
  }

  @Test
  void pruneTakesTheOldestEndedRootsFirstAtMostABatchAtATime() {
    RunRef first = start(run(command("a", "true")));
    succeedEverythingClaimable();
    elapse(Duration.ofMinutes(1));
    RunRef second = start(run(command("a", "true")));
    succeedEverythingClaimable();
    elapse(Duration.ofDays(2));

    PruneReport one = prune(Duration.ofDays(1), java.util.OptionalInt.of(1), false);
    PruneReport two = prune(Duration.ofDays(1), java.util.OptionalInt.of(1), false);
    PruneReport none = prune(Duration.ofDays(1), java.util.OptionalInt.of(1), false);

    assertThat(one.roots()).containsExactly(first);
    assertThat(two.roots()).containsExactly(second);
    assertThat(two.pruneId().orElseThrow()).isGreaterThan(one.pruneId().orElseThrow());
    assertThat(none.empty()).isTrue();
    assertThat(none.pruneId()).isEmpty();
  }

  @Test
  void aRunThatAKeptRunRerunsIsKeptUntilTheRerunGoes() {
    RunRef first = start(run(command("a", "true")));
    succeedEverythingClaimable();
    RunRef again =
        journal
            .admit(
                new StartRun(
                    Optional.empty(),
                    "rerun-" + System.nanoTime(),
                    run(command("a", "true")),
                    Optional.empty(),
                    "api",
                    Optional.of(first)),
                Admit.queued())
            .runId();
    succeedEverythingClaimable();
    elapse(Duration.ofDays(2));

    assertThat(prune(Duration.ofDays(1), java.util.OptionalInt.of(1), false).roots())
        .containsExactly(again);
    assertThat(journal.run(first)).isPresent();
    assertThat(prune(Duration.ofDays(1), java.util.OptionalInt.of(1), false).roots())
        .containsExactly(first);
  }

  @Test
  void pruningARunWhoseCallWasATaskRemovesTheTaskWithIt() {
    ClaimedAttempt a = callingAttempt();
    RunRef id = a.lease().runId();
    journal.recordTask(a.lease(), TASK_SURFACE, task("t-pruned", "working", "0%"));
    journal.cancelRun(id, "operator");
    elapse(Duration.ofHours(2));

    assertThat(prune(Duration.ofHours(1), java.util.OptionalInt.empty(), false).runs())
        .isEqualTo(1);

    assertThat(journal.run(id)).isEmpty();
    assertThat(journal.tasksToCancel(10)).isEmpty();
  }

  @Test
  void aRunEndedWithinThePeriodIsNotPruned() {
    RunRef recent = start(run(command("a", "true")));
    succeedEverythingClaimable();
    elapse(Duration.ofHours(23));

    assertThat(prune(Duration.ofDays(1), java.util.OptionalInt.empty(), false).empty()).isTrue();
    assertThat(journal.run(recent)).isPresent();
  }

  // ---------------------------------------------------------------- schedules

  private static final Instant CONTRACT_START = Instant.parse("2026-01-01T00:00:00Z");

  private static dev.flows.kernel.schedule.ScheduleDefinition everySecond(
      String name, dev.flows.kernel.schedule.Overlap overlap) {
    return dev.flows.kernel.schedule.ScheduleDefinition.of(
            name,
            "nightly",
            dev.flows.kernel.schedule.Calendar.every(Duration.ofSeconds(1), Duration.ZERO))
        .withOverlap(overlap);
  }

  private static StartRun tickTemplate() {
    return StartRun.of("template", run(agent("a")));
  }

  private List<dev.flows.kernel.schedule.ScheduleEntry> take(String name) {
    return journal.takeTicks(name, tickTemplate(), WORKER.value());
  }

  private dev.flows.kernel.schedule.ScheduleState create(
      dev.flows.kernel.schedule.ScheduleDefinition d) {
    return journal
        .changeSchedule(new dev.flows.kernel.schedule.ScheduleChange.Create(d, "test"))
        .schedule();
  }

  private static List<dev.flows.kernel.schedule.TickDecision> decisions(
      List<dev.flows.kernel.schedule.ScheduleEntry> entries) {
    return entries.stream()
        .map(
            e ->
                switch (e) {
                  case dev.flows.kernel.schedule.ScheduleEntry.TickStarted t -> t.decision();
                  case dev.flows.kernel.schedule.ScheduleEntry.TickNotStarted t -> t.decision();
                  default -> throw new AssertionError("not a tick: " + e);
                })
        .toList();
  }

  private RunRef startedRun(dev.flows.kernel.schedule.ScheduleEntry e) {
    return ((dev.flows.kernel.schedule.ScheduleEntry.TickStarted) e).runId();
  }

  @Test
  void aScheduleWhoseInputIsPastTheRunInputLimitIsRefusedPayloadTooLargeWithNothingWritten() {
    long bound = PayloadLimits.DEFAULTS.maxRunInputBytes();
    var small = everySecond("big-input", dev.flows.kernel.schedule.Overlap.SKIP);
    var big = small.withInput(payloadOf(bound + 1));

    assertThatThrownBy(() -> create(big))
        .isInstanceOf(FlowsException.class)
        .satisfies(
            e -> {
              FlowsException f = (FlowsException) e;
              assertThat(f.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
              assertThat(f.getMessage())
                  .contains("maxRunInputBytes")
                  .contains(String.valueOf(bound + 1));
            });
    assertThat(journal.schedule("big-input")).isEmpty();
    assertThat(journal.scheduleEntries("big-input")).isEmpty();

    create(small);
    assertThatThrownBy(
            () ->
                journal.changeSchedule(
                    new dev.flows.kernel.schedule.ScheduleChange.Update(big, "ops")))
        .isInstanceOf(FlowsException.class)
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
    assertThat(journal.schedule("big-input").orElseThrow().definition().toJson())
        .isEqualTo(small.toJson());
    assertThat(journal.scheduleEntries("big-input")).hasSize(1);
    create(
        everySecond("at-the-bound", dev.flows.kernel.schedule.Overlap.SKIP)
            .withInput(payloadOf(bound)));
  }

  @Test
  void everyScheduleChangeIsJournaledAndAChangeThatChangesNothingWritesNothing() {
    var d = everySecond("sync", dev.flows.kernel.schedule.Overlap.SKIP);
    create(d);
    create(d);
    assertThatThrownBy(() -> create(d.withOverlap(dev.flows.kernel.schedule.Overlap.ALLOW_ALL)))
        .isInstanceOf(FlowsException.class)
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.SCHEDULE_EXISTS);
    journal.changeSchedule(
        new dev.flows.kernel.schedule.ScheduleChange.Update(
            d.withOverlap(dev.flows.kernel.schedule.Overlap.ALLOW_ALL), "ops"));
    journal.changeSchedule(
        new dev.flows.kernel.schedule.ScheduleChange.Pause("sync", "maintenance", "ops"));
    journal.changeSchedule(
        new dev.flows.kernel.schedule.ScheduleChange.Pause("sync", "again", "ops"));
    assertThat(journal.schedule("sync").orElseThrow().paused()).isTrue();
    journal.changeSchedule(new dev.flows.kernel.schedule.ScheduleChange.Resume("sync", "ops"));
    journal.changeSchedule(new dev.flows.kernel.schedule.ScheduleChange.Delete("sync", "ops"));

    assertThat(journal.schedule("sync")).isEmpty();
    assertThat(journal.schedules()).isEmpty();
    assertThat(journal.scheduleEntries("sync").stream().map(r -> r.entry().type()))
        .containsExactly(
            "schedule.created",
            "schedule.updated",
            "schedule.paused",
            "schedule.resumed",
            "schedule.deleted");
    assertThat(journal.scheduleEntries("sync").get(2).by()).isEqualTo("ops");
    assertThatThrownBy(
            () ->
                journal.changeSchedule(
                    new dev.flows.kernel.schedule.ScheduleChange.Resume("sync", "ops")))
        .isInstanceOf(FlowsException.class)
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.SCHEDULE_NOT_FOUND);
  }

  @Test
  void aDueTickIsTakenOnceAndItsRunIsAdmittedUnderTheTicksKey() {
    var s = create(everySecond("sync", dev.flows.kernel.schedule.Overlap.ALLOW_ALL));
    assertThat(s.nextTick()).contains(CONTRACT_START.plusSeconds(1));
    assertThat(journal.dueSchedules(Set.of("nightly"), 10)).isEmpty();
    assertThat(take("sync")).isEmpty();

    elapse(Duration.ofSeconds(1));
    assertThat(journal.dueSchedules(Set.of("other"), 10)).isEmpty();
    assertThat(journal.dueSchedules(Set.of("nightly"), 10))
        .extracting(dev.flows.kernel.schedule.ScheduleState::name)
        .containsExactly("sync");
    List<dev.flows.kernel.schedule.ScheduleEntry> first = take("sync");
    List<dev.flows.kernel.schedule.ScheduleEntry> second = take("sync");

    assertThat(decisions(first)).containsExactly(dev.flows.kernel.schedule.TickDecision.STARTED);
    assertThat(second).isEmpty();
    RunRef id = startedRun(first.getFirst());
    assertThat(entriesOf(id, JournalEntry.RunSpawned.class).getFirst().admissionKey())
        .isEqualTo(
            dev.flows.kernel.schedule.Schedules.admissionKey(
                "sync", CONTRACT_START.plusSeconds(1)));
    assertThat(journal.schedule("sync").orElseThrow().nextTick())
        .contains(CONTRACT_START.plusSeconds(2));
    assertThat(journal.schedule("sync").orElseThrow().lastRun()).contains(id);
    assertThat(journal.scheduleEntries("sync")).hasSize(2);
  }

  private dev.flows.kernel.schedule.TickBatch takeDue(int limit) {
    return journal.takeDueTicks(
        Set.of("nightly"), limit, d -> Optional.of(tickTemplate()), WORKER.value());
  }

  @Test
  void aBatchTakeTakesTheDueSchedulesEarliestFirstUpToItsLimitAndLeavesTheRest() {
    create(everySecond("b", dev.flows.kernel.schedule.Overlap.SKIP));
    create(everySecond("a", dev.flows.kernel.schedule.Overlap.SKIP));
    create(everySecond("c", dev.flows.kernel.schedule.Overlap.SKIP));
    assertThat(takeDue(10).held()).isZero();
    elapse(Duration.ofSeconds(1));

    dev.flows.kernel.schedule.TickBatch first = takeDue(2);
    dev.flows.kernel.schedule.TickBatch second = takeDue(2);
    dev.flows.kernel.schedule.TickBatch third = takeDue(2);

    assertThat(first.held()).isEqualTo(2);
    assertThat(first.taken())
        .extracting(dev.flows.kernel.schedule.TickBatch.Taken::schedule)
        .containsExactly("a", "b");
    assertThat(first.decided()).isEqualTo(2);
    assertThat(second.taken())
        .extracting(dev.flows.kernel.schedule.TickBatch.Taken::schedule)
        .containsExactly("c");
    assertThat(third.held()).isZero();
    assertThat(decisions(second.taken().getFirst().entries()))
        .containsExactly(dev.flows.kernel.schedule.TickDecision.STARTED);
    assertThat(journal.scheduleEntries("c")).hasSize(2);
  }

  @Test
  void aBatchTakeLeavesTheSchedulesWhoseFlowTheTakerCannotStartUntouched() {
    create(everySecond("mine", dev.flows.kernel.schedule.Overlap.SKIP));
    create(everySecond("theirs", dev.flows.kernel.schedule.Overlap.SKIP));
    elapse(Duration.ofSeconds(1));

    dev.flows.kernel.schedule.TickBatch batch =
        journal.takeDueTicks(
            Set.of("nightly"),
            10,
            d -> d.name().equals("mine") ? Optional.of(tickTemplate()) : Optional.empty(),
            WORKER.value());

    assertThat(batch.held()).isEqualTo(2);
    assertThat(batch.taken())
        .extracting(dev.flows.kernel.schedule.TickBatch.Taken::schedule)
        .containsExactly("mine");
    assertThat(journal.scheduleEntries("theirs")).hasSize(1);
    assertThat(journal.schedule("theirs").orElseThrow().nextTick())
        .contains(CONTRACT_START.plusSeconds(1));
    assertThat(take("theirs")).hasSize(1);
  }

  @Test
  void twoTakersTakingBatchesOfTheSameDueSchedulesAtOnceDecideEachTickOnce() throws Exception {
    int schedules = 40;
    for (int i = 0; i < schedules; i++) {
      create(everySecond("s" + i, dev.flows.kernel.schedule.Overlap.SKIP));
    }
    elapse(Duration.ofSeconds(3));
    java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
    java.util.function.Supplier<List<dev.flows.kernel.schedule.TickBatch.Taken>> taker =
        () -> {
          List<dev.flows.kernel.schedule.TickBatch.Taken> taken = new java.util.ArrayList<>();
          try {
            together.await(30, TimeUnit.SECONDS);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          for (int pass = 0; pass < schedules; pass++) {
            dev.flows.kernel.schedule.TickBatch b = takeDue(3);
            taken.addAll(b.taken());
            if (b.held() == 0) {
              break;
            }
          }
          return taken;
        };
    List<dev.flows.kernel.schedule.TickBatch.Taken> all = new java.util.ArrayList<>();
    // Two threads of their own: the common pool may have one, and the barrier needs both.
    java.util.concurrent.ExecutorService two = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      var first = CompletableFuture.supplyAsync(taker, two);
      var second = CompletableFuture.supplyAsync(taker, two);
      all.addAll(first.get(60, TimeUnit.SECONDS));
      all.addAll(second.get(60, TimeUnit.SECONDS));
    } finally {
      two.shutdownNow();
    }

    assertThat(all)
        .extracting(dev.flows.kernel.schedule.TickBatch.Taken::schedule)
        .doesNotHaveDuplicates()
        .hasSize(schedules);
    for (int i = 0; i < schedules; i++) {
      String name = "s" + i;
      // Three ticks due, the run of the first still going: one started, two skipped by overlap.
      List<dev.flows.kernel.schedule.ScheduleEntry> ticks =
          journal.scheduleEntries(name).stream()
              .<dev.flows.kernel.schedule.ScheduleEntry>map(r -> r.entry())
              .filter(e -> !(e instanceof dev.flows.kernel.schedule.ScheduleEntry.Created))
              .toList();
      assertThat(decisions(ticks))
          .as(name)
          .containsExactly(
              dev.flows.kernel.schedule.TickDecision.STARTED,
              dev.flows.kernel.schedule.TickDecision.SKIPPED_OVERLAP,
              dev.flows.kernel.schedule.TickDecision.SKIPPED_OVERLAP);
    }
    assertThat(takeDue(10).held()).isZero();
  }

  @Test
  void anExcludedTickIsNeitherTakenNorJournaledNorBackfilled() {
    create(
        everySecond("sync", dev.flows.kernel.schedule.Overlap.ALLOW_ALL)
            .withExclude(List.of(dev.flows.kernel.schedule.Exclusion.parse("0/2 * * * * *"))));
    elapse(Duration.ofSeconds(10));

    List<dev.flows.kernel.schedule.ScheduleEntry> taken = take("sync");

    assertThat(taken)
        .extracting(e -> ((dev.flows.kernel.schedule.ScheduleEntry.TickStarted) e).nominal())
        .containsExactly(
            CONTRACT_START.plusSeconds(1),
            CONTRACT_START.plusSeconds(3),
            CONTRACT_START.plusSeconds(5),
            CONTRACT_START.plusSeconds(7),
            CONTRACT_START.plusSeconds(9));
    assertThat(journal.schedule("sync").orElseThrow().nextTick())
        .contains(CONTRACT_START.plusSeconds(11));
    journal.changeSchedule(
        new dev.flows.kernel.schedule.ScheduleChange.Backfill(
            "sync", CONTRACT_START, CONTRACT_START.plusSeconds(4), "ops"));
    assertThat(journal.schedule("sync").orElseThrow().pending())
        .extracting(dev.flows.kernel.schedule.PendingTick::nominal)
        .containsExactly(CONTRACT_START.plusSeconds(1), CONTRACT_START.plusSeconds(3));
  }

  @Test
  void ticksMissedPastTheCatchUpWindowAreJournaledSkippedAndTheTenMostRecentRunOnceEach() {
    create(
        everySecond("sync", dev.flows.kernel.schedule.Overlap.ALLOW_ALL)
            .withCatchUpWindow(Duration.ofSeconds(10)));
    elapse(Duration.ofSeconds(30));

    List<dev.flows.kernel.schedule.ScheduleEntry> taken = take("sync");
    assertThat(take("sync")).isEmpty();

    Map<Instant, dev.flows.kernel.schedule.TickDecision> byTick = new java.util.TreeMap<>();
    for (dev.flows.kernel.schedule.ScheduleEntry e : taken) {
      Instant nominal =
          switch (e) {
            case dev.flows.kernel.schedule.ScheduleEntry.TickStarted t -> t.nominal();
            case dev.flows.kernel.schedule.ScheduleEntry.TickNotStarted t -> t.nominal();
            default -> throw new AssertionError(e);
          };
      assertThat(byTick.put(nominal, decisions(List.of(e)).getFirst())).isNull();
    }
    Instant now = CONTRACT_START.plusSeconds(30);
    assertThat(byTick).hasSize(30);
    for (int i = 1; i <= 30; i++) {
      // Seen due 30 - i seconds late: up to the 10 s window it runs; the first to run finds none.
      assertThat(byTick.get(CONTRACT_START.plusSeconds(i)))
          .as("tick " + i)
          .isEqualTo(
              i < 20
                  ? dev.flows.kernel.schedule.TickDecision.SKIPPED_MISSED
                  : i == 20
                      ? dev.flows.kernel.schedule.TickDecision.STARTED
                      : dev.flows.kernel.schedule.TickDecision.STARTED_ALONGSIDE);
    }
    long missedRun =
        byTick.entrySet().stream()
            .filter(t -> t.getKey().isBefore(now) && t.getValue().starts())
            .count();
    assertThat(missedRun).isEqualTo(10);
    assertThat(
            taken.stream()
                .filter(e -> e instanceof dev.flows.kernel.schedule.ScheduleEntry.TickStarted)
                .map(this::startedRun)
                .distinct()
                .count())
        .isEqualTo(11);
  }

  @Test
  void aTickWhileTheRunGoesOnIsSkippedUnderSkip() {
    assertThat(overlapDecisions(dev.flows.kernel.schedule.Overlap.SKIP))
        .containsExactly(
            dev.flows.kernel.schedule.TickDecision.STARTED,
            dev.flows.kernel.schedule.TickDecision.SKIPPED_OVERLAP,
            dev.flows.kernel.schedule.TickDecision.SKIPPED_OVERLAP);
  }

  @Test
  void underBufferOneOneTickWaitsAndStartsWhenTheRunEndsAndTheNextIsSkipped() {
    assertThat(overlapDecisions(dev.flows.kernel.schedule.Overlap.BUFFER_ONE))
        .containsExactly(
            dev.flows.kernel.schedule.TickDecision.STARTED,
            dev.flows.kernel.schedule.TickDecision.BUFFERED,
            dev.flows.kernel.schedule.TickDecision.SKIPPED_BUFFER_FULL);
    RunRef first = journal.schedule("sync").orElseThrow().lastRun().orElseThrow();
    journal.cancelRun(first, "done");

    List<dev.flows.kernel.schedule.ScheduleEntry> released = take("sync");
    assertThat(decisions(released)).containsExactly(dev.flows.kernel.schedule.TickDecision.STARTED);
    assertThat(
            ((dev.flows.kernel.schedule.ScheduleEntry.TickStarted) released.getFirst()).nominal())
        .isEqualTo(CONTRACT_START.plusSeconds(2));
    assertThat(journal.schedule("sync").orElseThrow().pending()).isEmpty();
  }

  @Test
  void underBufferAllEveryTickWaitsAndTheyStartOneAfterAnother() {
    assertThat(overlapDecisions(dev.flows.kernel.schedule.Overlap.BUFFER_ALL))
        .containsExactly(
            dev.flows.kernel.schedule.TickDecision.STARTED,
            dev.flows.kernel.schedule.TickDecision.BUFFERED,
            dev.flows.kernel.schedule.TickDecision.BUFFERED);
    for (int second = 2; second <= 3; second++) {
      journal.cancelRun(journal.schedule("sync").orElseThrow().lastRun().orElseThrow(), "done");
      List<dev.flows.kernel.schedule.ScheduleEntry> released = take("sync");
      assertThat(
              ((dev.flows.kernel.schedule.ScheduleEntry.TickStarted) released.getFirst()).nominal())
          .isEqualTo(CONTRACT_START.plusSeconds(second));
      assertThat(take("sync")).as("one waiting tick at a time").isEmpty();
    }
  }

  @Test
  void underCancelOtherEachTickCancelsTheRunStillGoingAndStarts() {
    assertThat(overlapDecisions(dev.flows.kernel.schedule.Overlap.CANCEL_OTHER))
        .containsExactly(
            dev.flows.kernel.schedule.TickDecision.STARTED,
            dev.flows.kernel.schedule.TickDecision.CANCELED_OTHER,
            dev.flows.kernel.schedule.TickDecision.CANCELED_OTHER);
    List<RunRef> runs =
        journal.scheduleEntries("sync").stream()
            .map(dev.flows.kernel.schedule.ScheduleRecord::entry)
            .filter(e -> e instanceof dev.flows.kernel.schedule.ScheduleEntry.TickStarted)
            .map(this::startedRun)
            .toList();
    assertThat(snapshot(runs.get(0)).status()).isEqualTo(RunStatus.CANCELED);
    assertThat(snapshot(runs.get(1)).status()).isEqualTo(RunStatus.CANCELED);
    assertThat(snapshot(runs.get(2)).status()).isEqualTo(RunStatus.RUNNING);
  }

  @Test
  void underAllowAllEveryTickStartsAlongside() {
    assertThat(overlapDecisions(dev.flows.kernel.schedule.Overlap.ALLOW_ALL))
        .containsExactly(
            dev.flows.kernel.schedule.TickDecision.STARTED,
            dev.flows.kernel.schedule.TickDecision.STARTED_ALONGSIDE,
            dev.flows.kernel.schedule.TickDecision.STARTED_ALONGSIDE);
  }

  /** Three ticks one second apart, taken one by one, the first run never ending. */
  private List<dev.flows.kernel.schedule.TickDecision> overlapDecisions(
      dev.flows.kernel.schedule.Overlap overlap) {
    create(everySecond("sync", overlap));
    List<dev.flows.kernel.schedule.ScheduleEntry> all = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      elapse(Duration.ofSeconds(1));
      all.addAll(take("sync"));
    }
    return decisions(all);
  }

  @Test
  void aScheduleThatPausesOnFailurePausesWhenItsLastRunFailed() {
    create(everySecond("sync", dev.flows.kernel.schedule.Overlap.SKIP).withPauseOnFailure(true));
    elapse(Duration.ofSeconds(1));
    take("sync");
    journal.complete(claimOne().lease(), retryableFailure());
    elapse(Duration.ofSeconds(1));

    assertThat(take("sync"))
        .extracting(dev.flows.kernel.schedule.ScheduleEntry::type)
        .containsExactly("schedule.paused");
    assertThat(take("sync")).isEmpty();
    assertThat(journal.schedule("sync").orElseThrow().paused()).isTrue();
  }

  @Test
  void aTriggeredTickAndABackfillWaitTheirTurnAndRunUnderTheirOwnKeys() {
    create(everySecond("sync", dev.flows.kernel.schedule.Overlap.SKIP));
    journal.changeSchedule(new dev.flows.kernel.schedule.ScheduleChange.Trigger("sync", "ops"));
    List<dev.flows.kernel.schedule.ScheduleEntry> triggered = take("sync");
    assertThat(triggered).hasSize(1);
    var t = (dev.flows.kernel.schedule.ScheduleEntry.TickStarted) triggered.getFirst();
    assertThat(t.source()).isEqualTo(dev.flows.kernel.schedule.TickSource.TRIGGER);
    assertThat(t.nominal()).isEqualTo(CONTRACT_START);
    journal.cancelRun(t.runId(), "done");

    journal.changeSchedule(
        new dev.flows.kernel.schedule.ScheduleChange.Backfill(
            "sync", CONTRACT_START.minusSeconds(10), CONTRACT_START.minusSeconds(9), "ops"));
    assertThat(journal.schedule("sync").orElseThrow().pending()).hasSize(2);
    var b = (dev.flows.kernel.schedule.ScheduleEntry.TickStarted) take("sync").getFirst();
    assertThat(b.source()).isEqualTo(dev.flows.kernel.schedule.TickSource.BACKFILL);
    assertThat(b.nominal()).isEqualTo(CONTRACT_START.minusSeconds(10));
    assertThat(journal.scheduleEntries("sync").stream().map(r -> r.entry().type()))
        .contains("schedule.ticks.requested");
  }

  @Test
  void aTurnsLiveTextIsOverwrittenPerStepReadByRunAndGoneWhenClearedWithNothingJournaled() {
    RunRef run = start(oneCallSpec());
    List<String> before = types(run);
    LiveText live = journal.liveText();

    live.publish(run, "b", "Hello");
    live.publish(run, "a", "Hi");
    live.publish(run, "b", "Hello wor");

    assertThat(live.of(run))
        .containsExactly(new LiveText.Partial("a", "Hi"), new LiveText.Partial("b", "Hello wor"));
    assertThat(live.of(new RunRef("another-run"))).isEmpty();
    live.clear(run, "b");
    assertThat(live.of(run)).containsExactly(new LiveText.Partial("a", "Hi"));
    live.clear(run, "a");
    live.clear(run, "a");
    assertThat(live.of(run)).isEmpty();
    assertThat(types(run)).isEqualTo(before);
  }

  @Test
  void theLiveTextOfTurnsARunsEndCutOffIsForgottenAndNothingIsPublishedAfterTheEnd() {
    RunRef canceled = start(run(agent("a"), agent("b")));
    LiveText live = journal.liveText();
    live.publish(canceled, "a", "half an answ");
    live.publish(canceled, "b", "another");

    journal.cancelRun(canceled, "stop");

    assertThat(live.of(canceled)).isEmpty();
    live.publish(canceled, "a", "half an answer, streamed after the end");
    assertThat(live.of(canceled)).isEmpty();

    RunRef failed = start(run(agent("f")));
    ClaimedAttempt a = claimOne();
    assertThat(a.lease().runId()).isEqualTo(failed);
    live.publish(failed, "f", "cut off");
    journal.complete(
        a.lease(), new StepOutcome.Failed(CompletionReason.WORKER_ERROR, json("why", "x"), false));
    assertThat(snapshot(failed).status()).isEqualTo(RunStatus.FAILED);
    assertThat(live.of(failed)).isEmpty();
  }
}
