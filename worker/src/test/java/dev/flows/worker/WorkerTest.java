package dev.flows.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.worker.exec.DeterministicExecutor;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkerTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private final Clock clock = Clock.systemUTC();
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final WorkerConfig config =
      WorkerConfig.defaults().toBuilder()
          .capacity(4)
          .pollInterval(Duration.ofMillis(200))
          .reconcileInterval(Duration.ofMillis(200))
          .stopGrace(Duration.ofMillis(500))
          .killGrace(Duration.ofMillis(300))
          .build();
  private final List<Worker> workers = new ArrayList<>();

  @AfterEach
  void stopWorkers() {
    workers.forEach(Worker::stop);
  }

  private Worker worker(WorkerConfig c, StepExecutor... executors) {
    Worker w =
        new Worker(
            journal,
            ExecutorRegistry.of(executors),
            c,
            clock,
            new WorkerId("w-" + UUID.randomUUID()));
    workers.add(w);
    w.start();
    return w;
  }

  private RunRef start(RunSpec spec) {
    return journal.admit(StartRun.of(UUID.randomUUID().toString(), spec), Admit.queued()).runId();
  }

  private RunStatus status(RunRef run) {
    return journal.run(run).orElseThrow().status();
  }

  private StepStatus stepStatus(RunRef run) {
    return journal.run(run).orElseThrow().steps().getFirst().status();
  }

  @Test
  void aWorkerRunsDeterministicStepsToSuccessUnderItsOwnId() {
    List<RunRef> runs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      runs.add(start(Specs.run(Specs.command("s", "echo", "hi"))));
    }
    Worker w = worker(config, new DeterministicExecutor(config));

    await().atMost(WAIT).until(() -> runs.stream().allMatch(r -> status(r) == RunStatus.SUCCEEDED));
    for (RunRef run : runs) {
      assertThat(JournalChecks.completions(journal, run)).hasSize(1);
      assertThat(
              journal.entries(run).stream()
                  .map(JournalRecord::entry)
                  .filter(e -> e instanceof JournalEntry.StepAttemptStarted)
                  .map(e -> ((JournalEntry.StepAttemptStarted) e).workerId()))
          .containsExactly(w.id());
    }
    assertThat(w.stats().completed()).isEqualTo(10);
  }

  @Test
  void aWorkerRunsItsSweepsEachReconcileIntervalAndAFailingSweepRunsAgain() {
    java.util.concurrent.atomic.AtomicInteger runs =
        new java.util.concurrent.atomic.AtomicInteger();
    Worker w = worker(config, new DeterministicExecutor(config));
    w.addSweep(
        () -> {
          if (runs.incrementAndGet() == 1) {
            throw new IllegalStateException("the first sweep fails");
          }
        });

    await().atMost(WAIT).until(() -> runs.get() >= 3);
  }

  @Test
  void anAttemptLeftByADeadWorkerIsExpiredAndFinishedByAnother() {
    StepSpec step = Specs.iterations(Specs.command("s", "true"), 2);
    RunRef run = start(Specs.run(Specs.lease(step, Duration.ofMillis(300))));
    // A worker that claims and then never renews or completes: it died.
    assertThat(
            journal.claim(
                new ClaimRequest(
                    new WorkerId("dead"),
                    Set.of(StepKind.DETERMINISTIC),
                    1,
                    config.defaultLease())))
        .hasSize(1);

    worker(config, new DeterministicExecutor(config));

    await().atMost(WAIT).until(() -> status(run) == RunStatus.SUCCEEDED);
    assertThat(JournalChecks.completionsWith(journal, run, CompletionReason.LEASE_EXPIRED))
        .isEqualTo(1);
    assertThat(JournalChecks.completionsWith(journal, run, CompletionReason.SUCCESS)).isEqualTo(1);
  }

  @Test
  void stopLetsAnAttemptThatFinishesWithinTheGraceComplete() {
    RunRef run = start(Specs.run(Specs.command("s", "sleep", "0.3")));
    Worker w =
        worker(
            config.toBuilder().stopGrace(Duration.ofSeconds(20)).build(),
            new DeterministicExecutor(config));
    await().atMost(WAIT).until(() -> stepStatus(run) == StepStatus.RUNNING);

    w.stop();

    assertThat(status(run)).isEqualTo(RunStatus.SUCCEEDED);
  }

  @Test
  void stopCancelsAnAttemptThatOutlivesTheGraceAndCompletesItForARetry() {
    RunRef run = start(Specs.run(Specs.iterations(Specs.command("s", "sleep", "60"), 2)));
    Worker w = worker(config, new DeterministicExecutor(config));
    await().atMost(WAIT).until(() -> stepStatus(run) == StepStatus.RUNNING);

    w.stop();

    assertThat(stepStatus(run)).isEqualTo(StepStatus.READY);
    JournalEntry.StepCompleted c = JournalChecks.completions(journal, run).getFirst();
    assertThat(c.reason()).isEqualTo(CompletionReason.WORKER_ERROR);
    assertThat(c.trajectoryTail().orElseThrow().get("cause").asText()).isEqualTo("worker_shutdown");
  }

  @Test
  void stopWaitsForAClaimStillInFlightAndHandsBackWhatItClaimed() throws Exception {
    RunRef run = start(Specs.run(Specs.iterations(Specs.command("s", "sleep", "60"), 2)));
    CountDownLatch inClaim = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    // A claim that the database answers only after stop() began (a slow statement under load).
    Journal slow =
        new ForwardingJournal(journal) {
          @Override
          public List<ClaimedAttempt> claim(ClaimRequest request) {
            inClaim.countDown();
            // Like a JDBC call, the wait ignores interrupts.
            boolean interrupted = false;
            while (release.getCount() > 0) {
              try {
                release.await();
              } catch (InterruptedException e) {
                interrupted = true;
              }
            }
            if (interrupted) {
              Thread.currentThread().interrupt();
            }
            return delegate.claim(request);
          }
        };
    Worker w =
        new Worker(
            slow,
            ExecutorRegistry.of(new DeterministicExecutor(config)),
            config,
            clock,
            new WorkerId("w-" + UUID.randomUUID()));
    workers.add(w);
    w.start();
    assertThat(inClaim.await(30, TimeUnit.SECONDS)).isTrue();

    Thread stopper = Thread.ofPlatform().start(w::stop);
    // Longer than the poll interval and the stop grace together: the claim is still in flight.
    Thread.sleep(config.pollInterval().plus(config.stopGrace()).plusMillis(500));
    release.countDown();
    stopper.join(Duration.ofSeconds(30));

    assertThat(stopper.isAlive()).isFalse();
    assertThat(stepStatus(run)).isEqualTo(StepStatus.READY);
    assertThat(JournalChecks.completions(journal, run).getFirst().reason())
        .isEqualTo(CompletionReason.WORKER_ERROR);
  }

  @Test
  void agentStepsAreDispatchedByInstructionTypeAndMayRecordEffects() {
    AgentInstructionExecutor test =
        new AgentInstructionExecutor() {
          @Override
          public String instructionType() {
            return "test";
          }

          @Override
          public StepOutcome execute(StepExecution execution) {
            EffectElection e = execution.effects().record("/mcp/x/y");
            execution.effects().confirm("/mcp/x/y", Optional.of(TextNode.valueOf("done")));
            return new StepOutcome.Succeeded(
                JsonNodeFactory.instance.objectNode().put("key", e.idempotencyKey()));
          }
        };
    RunRef run = start(Specs.run(Specs.agent("s", "/mcp/x/y")));
    worker(config, new AgentExecutor(List.of(test)));

    await().atMost(WAIT).until(() -> status(run) == RunStatus.SUCCEEDED);
    assertThat(JournalChecks.completions(journal, run).getFirst().effects()).hasSize(1);
  }

  @Test
  void aStepWhoseInstructionTypeThisWorkerCannotRunIsLeftForAnotherWorker() throws Exception {
    RunRef foreign = start(Specs.run(Specs.iterations(Specs.agent("s"), 3)));
    RunRef own = start(Specs.run(Specs.command("c", "true")));
    Worker w =
        worker(
            config,
            new AgentExecutor(List.of(succeeding("other"))),
            new DeterministicExecutor(config));

    // The worker polls and claims what it can run ...
    await().atMost(WAIT).until(() -> status(own) == RunStatus.SUCCEEDED);
    Thread.sleep(config.pollInterval().multipliedBy(3).toMillis());
    // ... but not the step of an instruction type it lacks.
    assertThat(w.stats().claimed()).isEqualTo(1);
    assertThat(status(foreign)).isEqualTo(RunStatus.RUNNING);
    assertThat(journal.entries(foreign))
        .extracting(r -> r.entry().type())
        .doesNotContain("step.attempt.started");

    // The step was claimable all along: a worker that runs its type takes it.
    worker(config, new AgentExecutor(List.of(succeeding("test"))));
    await().atMost(WAIT).until(() -> status(foreign) == RunStatus.SUCCEEDED);
  }

  private static AgentInstructionExecutor succeeding(String type) {
    return new AgentInstructionExecutor() {
      @Override
      public String instructionType() {
        return type;
      }

      @Override
      public StepOutcome execute(StepExecution execution) {
        return new StepOutcome.Succeeded(JsonNodeFactory.instance.objectNode().put("by", type));
      }
    };
  }

  @Test
  void anAgentExecutorAskedForATypeItLacksFailsWithoutRetry() throws Exception {
    AgentExecutor none = new AgentExecutor(List.of());
    RunRef run = start(Specs.run(Specs.agent("s")));
    var attempt =
        journal
            .claim(
                new dev.flows.kernel.journal.ClaimRequest(
                    new dev.flows.kernel.journal.WorkerId("direct"),
                    java.util.Set.of(dev.flows.kernel.spec.StepKind.AGENT),
                    1,
                    java.time.Duration.ofSeconds(30)))
            .getFirst();
    StepOutcome out = none.execute(new StepExecution(attempt, new CancellationToken(), null));
    assertThat(out).isInstanceOf(StepOutcome.Failed.class);
    assertThat(((StepOutcome.Failed) out).retryable()).isFalse();
    assertThat(((StepOutcome.Failed) out).trajectoryTail().get("diagnostic").asText())
        .isEqualTo("unknown_instruction_type");
    assertThat(run).isNotNull();
  }

  /** Records what each claim asked for, and answers the connection gauge from {@link #waiting}. */
  private static class GaugedJournal extends ForwardingJournal {
    final java.util.concurrent.atomic.AtomicInteger waiting =
        new java.util.concurrent.atomic.AtomicInteger();
    final List<Integer> asked = new java.util.concurrent.CopyOnWriteArrayList<>();

    GaugedJournal(InMemoryJournal delegate) {
      super(delegate);
    }

    @Override
    public List<dev.flows.kernel.journal.ClaimedAttempt> claim(ClaimRequest request) {
      asked.add(request.capacity());
      return super.claim(request);
    }

    @Override
    public int waitingForConnection() {
      return waiting.get();
    }
  }

  private Worker worker(GaugedJournal j, WorkerConfig c) {
    Worker w =
        new Worker(
            j,
            ExecutorRegistry.of(new DeterministicExecutor(c)),
            c,
            clock,
            new WorkerId("w-" + UUID.randomUUID()));
    workers.add(w);
    w.start();
    return w;
  }

  @Test
  void aFullWorkersPollLeavesASlotAnEndingAttemptFreesToTheNextStartInThisProcess()
      throws Exception {
    // Claims that find nothing take a while, as a query does: a slot a poll takes is held.
    GaugedJournal slowClaims =
        new GaugedJournal(journal) {
          @Override
          public List<dev.flows.kernel.journal.ClaimedAttempt> claim(ClaimRequest request) {
            try {
              Thread.sleep(5);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return super.claim(request);
          }
        };
    WorkerConfig c = config.toBuilder().capacity(1).pollInterval(Duration.ofMillis(10)).build();
    Worker w =
        new Worker(
            slowClaims,
            ExecutorRegistry.of(new InProcessExecutor(Duration.ofMillis(5))),
            c,
            clock,
            new WorkerId("w-" + UUID.randomUUID()));
    workers.add(w);
    w.start();
    int runs = 100;
    int startedElsewhere = 0;
    for (int i = 0; i < runs; i++) {
      StartRun request =
          StartRun.of(UUID.randomUUID().toString(), Specs.run(Specs.command("s", "true")));
      Optional<Worker.ClaimedHere> here = w.startClaimed(request);
      if (here.isEmpty()) {
        startedElsewhere++;
        RunRef run = slowClaims.admit(request, Admit.queued()).runId();
        await().atMost(WAIT).until(() -> status(run) == RunStatus.SUCCEEDED);
      } else {
        here.get().end().orElseThrow().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    }

    // Each poll while the one slot was busy would take it as the attempt ended, so the start
    // right after found none: about every other run with a poll every 10 ms. A quarter keeps
    // that apart from the few a loaded machine's scheduling lets a poll win.
    assertThat(startedElsewhere).isLessThan(runs / 4);
  }

  @Test
  void anIdleWorkerClaimsATimerAtItsDueTimeNotAtItsNextPoll() {
    // A step suspended on a timer due 4.5 s after its attempt: the worker's first wait after it
    // runs a whole poll interval (3 s) without a wake-up, so the worker is idle when it comes due.
    Duration due = Duration.ofMillis(4500);
    List<java.time.Instant> dueAt = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<java.time.Instant> resumedAt = new java.util.concurrent.CopyOnWriteArrayList<>();
    StepExecutor timer =
        new StepExecutor() {
          @Override
          public StepKind kind() {
            return StepKind.DETERMINISTIC;
          }

          @Override
          public StepOutcome execute(StepExecution execution) {
            if (dueAt.isEmpty()) {
              dueAt.add(clock.instant().plus(due));
              return StepOutcome.Suspended.timer(due);
            }
            resumedAt.add(clock.instant());
            return new StepOutcome.Succeeded(JsonNodeFactory.instance.nullNode());
          }
        };
    RunRef run = start(Specs.run(Specs.command("s", "true")));
    worker(config.toBuilder().pollInterval(Duration.ofSeconds(3)).build(), timer);

    await().atMost(WAIT).until(() -> status(run) == RunStatus.SUCCEEDED);
    // At its next poll it would resume 1.5 s late.
    assertThat(Duration.between(dueAt.getFirst(), resumedAt.getFirst()))
        .isLessThan(Duration.ofMillis(750));
  }

  @Test
  void aDeferredStartOnAPlainJournalAdmitsItsRunWithItsEndInOneAdmission() throws Exception {
    Worker w = worker(config, new InProcessExecutor(Duration.ZERO));
    StartRun request =
        StartRun.of(UUID.randomUUID().toString(), Specs.run(Specs.command("s", "true")));

    // Empty while a claim in flight holds the free slot: nothing is admitted then, so try again.
    Worker.ClaimedHere here =
        await()
            .atMost(WAIT)
            .until(() -> w.startClaimed(request, WAIT), Optional::isPresent)
            .orElseThrow();

    // Admitted with the attempt's success: the starter first sees the run already ended.
    assertThat(here.started().status()).isEqualTo(RunStatus.SUCCEEDED);
    here.end().orElseThrow().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(journal.entries(here.started().runId()).stream().map(r -> r.entry().type()).toList())
        .containsExactly("run.spawned", "step.attempt.started", "step.completed", "run.completed");
  }

  @Test
  void aStarterWhoseRunIsAdmittedWithItsEndIsAnsweredWithTheEndKnownAndItsSlotFree()
      throws Exception {
    Worker w = worker(config.toBuilder().capacity(1).build(), new InProcessExecutor(Duration.ZERO));
    // The first attempt's thread lingers between its admission and its end, as a busy machine may
    // make it: the starter is answered after that, once.
    java.util.concurrent.atomic.AtomicBoolean lingered =
        new java.util.concurrent.atomic.AtomicBoolean();
    w.observeAttempts(
        new AttemptObserver() {
          @Override
          public void claimed(ClaimedAttempt attempt) {}

          @Override
          public void ended(ClaimedAttempt attempt, Ending ending, Duration took) {
            try {
              if (lingered.compareAndSet(false, true)) {
                Thread.sleep(300);
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
    StartRun request =
        StartRun.of(UUID.randomUUID().toString(), Specs.run(Specs.command("s", "true")));

    Worker.ClaimedHere here =
        await()
            .atMost(WAIT)
            .until(() -> w.startClaimed(request, WAIT), Optional::isPresent)
            .orElseThrow();

    assertThat(here.started().status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(here.end().orElseThrow()).isDone();
    // The one slot is free for the starter's next run.
    StartRun next =
        StartRun.of(UUID.randomUUID().toString(), Specs.run(Specs.command("s", "true")));
    Worker.ClaimedHere again =
        await()
            .atMost(Duration.ofMillis(150))
            .until(() -> w.startClaimed(next, WAIT), Optional::isPresent)
            .orElseThrow();
    assertThat(again.started().status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  @Test
  void aClaimNeverAsksForMoreAttemptsThanTheClaimBatch() {
    GaugedJournal gauged = new GaugedJournal(journal);
    List<RunRef> runs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      runs.add(start(Specs.run(Specs.command("s", "echo", "hi"))));
    }
    worker(gauged, config.toBuilder().capacity(10).claimBatch(3).build());

    await().atMost(WAIT).until(() -> runs.stream().allMatch(r -> status(r) == RunStatus.SUCCEEDED));
    assertThat(gauged.asked).isNotEmpty().allMatch(n -> n <= 3);
  }

  @Test
  void aWorkerWithNoMoreRoomThanOneBatchClaimsEvenWhileCallersWaitForAConnection() {
    GaugedJournal gauged = new GaugedJournal(journal);
    gauged.waiting.set(1);
    RunRef run = start(Specs.run(Specs.command("s", "echo", "hi")));
    Worker w = worker(gauged, config.toBuilder().claimBatch(4).build());

    await().atMost(WAIT).until(() -> status(run) == RunStatus.SUCCEEDED);
    assertThat(w.stats().congestedClaims()).isZero();
  }

  @Test
  void noWorkIsClaimedWhileCallersWaitForADatabaseConnection() {
    GaugedJournal gauged = new GaugedJournal(journal);
    gauged.waiting.set(1);
    RunRef run = start(Specs.run(Specs.command("s", "echo", "hi")));
    // More room (capacity 4) than one batch (1): the worker could flood its pool.
    Worker w = worker(gauged, config.toBuilder().claimBatch(1).build());

    // Twice round the loop, each time a whole poll interval of congestion without a claim.
    await().atMost(WAIT).until(() -> w.stats().congestedClaims() >= 2);
    assertThat(gauged.asked).isEmpty();
    assertThat(stepStatus(run)).isEqualTo(StepStatus.READY);

    gauged.waiting.set(0);
    await().atMost(WAIT).until(() -> status(run) == RunStatus.SUCCEEDED);
  }
}
