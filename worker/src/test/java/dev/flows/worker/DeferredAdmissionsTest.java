package dev.flows.worker;

import static dev.flows.kernel.journal.Specs.agent;
import static dev.flows.kernel.journal.Specs.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.ClaimedStart;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import java.lang.reflect.Method;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DeferredAdmissionsTest {
  private static final WorkerId WORKER = new WorkerId("deferring");
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final InMemoryJournal memory = new InMemoryJournal(Clock.systemUTC());
  private final DeferredAdmissions journal =
      new DeferredAdmissions(memory, WorkerConfig.defaults());

  private record Held(RunRef run, ClaimedAttempt attempt, DeferredAdmissions.Deferred admission) {}

  private Held defer(String... surfaces) {
    RunRef id = RunRef.random();
    StartRun r = StartRun.of("flow:" + id.value(), run(agent("body", surfaces))).withRunId(id);
    ClaimedAttempt a = ClaimedStart.firstAttempt(r, id, LEASE, java.time.Instant.now());
    DeferredAdmissions.Deferred d = journal.defer(r, a, WORKER, LEASE);
    d.bodyStarted();
    return new Held(id, a, d);
  }

  private List<String> types(RunRef id) {
    return memory.entries(id).stream().map(JournalRecord::entry).map(e -> e.type()).toList();
  }

  @Test
  void aHeldRunIsNotInTheJournalUntilItsBodyEndsAndThenArrivesWithItsEnd() throws Exception {
    Held h = defer("/memo/0");
    assertThat(memory.run(h.run())).isEmpty();
    CompletableFuture<StartedRun> started =
        CompletableFuture.supplyAsync(() -> h.admission().await(Duration.ofSeconds(30)));
    var ack =
        journal.complete(
            h.attempt().lease(),
            new StepOutcome.Succeeded(
                TextNode.valueOf("done"),
                List.of(new MemoEffect("/memo/0", Optional.of(TextNode.valueOf("m"))))));
    assertThat(ack.runStatus()).isEqualTo(RunStatus.SUCCEEDED);
    StartedRun s = started.get(10, TimeUnit.SECONDS);
    assertThat(s.runId()).isEqualTo(h.run());
    assertThat(s.created()).isTrue();
    assertThat(s.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(types(h.run()))
        .containsExactly(
            "run.spawned",
            "step.attempt.started",
            "effect.recorded",
            "effect.confirmed",
            "step.completed",
            "run.completed");
  }

  @Test
  void anAdmissionWithItsEndWhoseAnswerWasLostIsAnsweredAsTheJournalHoldsIt() throws Exception {
    // The first try commits and its answer is lost (the connection drops): the retry finds the
    // same admission made, and the end is answered from the run as the journal holds it.
    AtomicInteger tries = new AtomicInteger();
    Journal lossy =
        new ForwardingJournal(memory) {
          @Override
          public <R> R admit(StartRun request, Admit<R> mode) {
            R answer = super.admit(request, mode);
            if (mode instanceof Admit.WithItsEnd && tries.incrementAndGet() == 1) {
              throw new FlowsException(
                  ErrorCode.DATABASE_UNAVAILABLE,
                  "connection lost after the commit",
                  "",
                  "",
                  true,
                  new SQLException("terminating connection", "57P01"));
            }
            return answer;
          }
        };
    WorkerConfig fastRetry =
        WorkerConfig.defaults().toBuilder()
            .dbRetry(4, Duration.ofMillis(1), Duration.ofMillis(5))
            .build();
    DeferredAdmissions deferring = new DeferredAdmissions(lossy, fastRetry);
    RunRef id = RunRef.random();
    StartRun r = StartRun.of("flow:" + id.value(), run(agent("body", "/memo/0"))).withRunId(id);
    ClaimedAttempt a = ClaimedStart.firstAttempt(r, id, LEASE, java.time.Instant.now());
    DeferredAdmissions.Deferred d = deferring.defer(r, a, WORKER, LEASE);
    d.bodyStarted();

    var ack =
        deferring.complete(
            a.lease(),
            new StepOutcome.Succeeded(
                TextNode.valueOf("done"),
                List.of(new MemoEffect("/memo/0", Optional.of(TextNode.valueOf("m"))))));

    assertThat(tries).hasValue(2);
    assertThat(ack.runStatus()).isEqualTo(RunStatus.SUCCEEDED);
    StartedRun s = d.await(Duration.ofSeconds(10));
    assertThat(s.runId()).isEqualTo(id);
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
  void anyOtherCallNamingTheRunAdmitsItClaimedFirst() {
    Held h = defer("/memo/0");
    journal.recordConfirmedEffects(
        h.attempt().lease(), List.of(new MemoEffect("/memo/0", Optional.empty())));
    assertThat(types(h.run()))
        .containsExactly(
            "run.spawned", "step.attempt.started", "effect.recorded", "effect.confirmed");
    assertThat(h.admission().await(Duration.ZERO).status()).isEqualTo(RunStatus.RUNNING);
    // The success then completes the attempt the admission opened, as any completion does.
    journal.complete(h.attempt().lease(), new StepOutcome.Succeeded(TextNode.valueOf("x")));
    assertThat(memory.run(h.run()).orElseThrow().status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  @Test
  void aSuccessWithMoreMemosThanTheAdmissionCarriesIsCompletedAfterAClaimedAdmission() {
    Held h = defer("/memo/*");
    List<MemoEffect> memos = new java.util.ArrayList<>();
    for (int i = 0; i <= DeferredAdmissions.MOST_MEMOS_WITH_ADMISSION; i++) {
      memos.add(new MemoEffect("/memo/" + i, Optional.empty()));
    }
    // Admitted claimed first: the starter saw the run running, not already ended.
    journal.complete(h.attempt().lease(), new StepOutcome.Succeeded(TextNode.valueOf("x"), memos));
    assertThat(h.admission().await(Duration.ZERO).status()).isEqualTo(RunStatus.RUNNING);
    assertThat(memory.run(h.run()).orElseThrow().status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(types(h.run()).subList(0, 2)).containsExactly("run.spawned", "step.attempt.started");
  }

  @Test
  void aChildStartedByAHeldBodyFindsItsParentAdmitted() {
    Held h = defer();
    StartRun child =
        new StartRun(
            Optional.empty(),
            "child-of-" + h.run().value(),
            run(agent("c")),
            Optional.of(h.run()),
            "test");
    RunRef c = journal.admit(child, Admit.queued()).runId();
    assertThat(memory.run(c).orElseThrow().parentRunId()).contains(h.run());
    assertThat(memory.run(h.run()).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
  }

  @Test
  void aStarterWhoseWaitRunsOutAdmitsTheRunClaimedItself() {
    Held h = defer();
    StartedRun s = h.admission().await(Duration.ofMillis(1));
    assertThat(s.status()).isEqualTo(RunStatus.RUNNING);
    assertThat(memory.run(h.run()).orElseThrow().steps().getFirst().status())
        .isEqualTo(StepStatus.RUNNING);
    assertThat(journal.heartbeat(h.attempt().lease())).isNotNull();
  }

  @Test
  void anAttemptThatEndsWithoutAdmittingLeavesTheRunForAnyWorkerToClaim() {
    Held h = defer();
    h.admission().attemptEnded();
    assertThat(h.admission().await(Duration.ZERO).created()).isTrue();
    assertThat(memory.run(h.run()).orElseThrow().steps().getFirst().status())
        .isEqualTo(StepStatus.READY);
  }

  @Test
  void aFailedAdmissionReachesTheStarterAndAdmitsNothingLater() {
    RunRef taken = memory.admit(StartRun.of("taken", run(agent("body"))), Admit.queued()).runId();
    StartRun r = StartRun.of("other", run(agent("body"))).withRunId(taken);
    ClaimedAttempt a = ClaimedStart.firstAttempt(r, taken, LEASE, java.time.Instant.now());
    Journal failing =
        new DeferredAdmissions(
            new ForwardingJournal(memory) {
              @Override
              public <R> R admit(StartRun request, Admit<R> mode) {
                if (mode instanceof Admit.ClaimedHere) {
                  throw new IllegalStateException("admission refused");
                }
                return super.admit(request, mode);
              }
            },
            WorkerConfig.defaults());
    DeferredAdmissions.Deferred d = ((DeferredAdmissions) failing).defer(r, a, WORKER, LEASE);
    d.bodyStarted();
    assertThatThrownBy(() -> d.await(Duration.ofMillis(1))).hasMessage("admission refused");
    d.attemptEnded();
    assertThat(memory.run(taken).orElseThrow().admissionKey()).isEqualTo("taken");
  }

  @Test
  void everyJournalVerbIsOverriddenSoNoneReachesTheJournalAroundAHeldAdmission() {
    List<String> missing =
        Arrays.stream(Journal.class.getMethods())
            .filter(m -> !overrides(m))
            .map(Method::getName)
            .toList();
    assertThat(missing).isEmpty();
  }

  private static boolean overrides(Method m) {
    try {
      return DeferredAdmissions.class
              .getDeclaredMethod(m.getName(), m.getParameterTypes())
              .getDeclaringClass()
          == DeferredAdmissions.class;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }
}
