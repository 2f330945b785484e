package dev.flows.worker.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.StepKind;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.InProcessExecutor;
import dev.flows.worker.JournalChecks;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PostgresWorkerTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;
  private final List<Worker> workers = new ArrayList<>();

  @BeforeAll
  static void open() {
    db = PgJournals.fresh(PostgresWorkerTest.class);
    journal = PgJournals.journal(db);
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  @AfterEach
  void stopWorkers() {
    workers.forEach(Worker::stop);
  }

  private Worker start(WorkerConfig config, String id) {
    Worker w =
        new Worker(
            journal,
            ExecutorRegistry.of(new InProcessExecutor(Duration.ZERO)),
            config,
            Clock.systemUTC(),
            new WorkerId(id));
    workers.add(w);
    w.start();
    return w;
  }

  private static RunRef startRun(int maxIterations) {
    return journal
        .admit(
            StartRun.of(
                UUID.randomUUID().toString(),
                Specs.run(Specs.iterations(Specs.command("s", "true"), maxIterations))),
            Admit.queued())
        .runId();
  }

  @Test
  void aRunStartedWhileTheWorkerIdlesWakesItLongBeforeItsPollIntervalAndStopIsPrompt() {
    Duration poll = Duration.ofMinutes(5);
    Worker w = start(WorkerConfig.defaults().toBuilder().pollInterval(poll).build(), "idle");
    // Let the worker find nothing and settle into its wait for a wake-up.
    await().pollDelay(Duration.ofSeconds(1)).until(() -> true);

    RunRef run = startRun(1);

    await()
        .atMost(poll.dividedBy(5))
        .until(() -> journal.run(run).orElseThrow().status() == RunStatus.SUCCEEDED);
    assertThat(w.stats().completed()).isEqualTo(1);
    long stopStarted = System.nanoTime();
    w.stop();
    assertThat(Duration.ofNanos(System.nanoTime() - stopStarted)).isLessThan(poll.dividedBy(5));
  }

  @Test
  void manyWorkersReconcilingAtOnceExpireEachDeadAttemptExactlyOnce() {
    int steps = 20;
    List<RunRef> runs = new ArrayList<>();
    for (int i = 0; i < steps; i++) {
      runs.add(startRun(2));
    }
    // A worker that claimed everything with a short lease and died; the live ones lease for long.
    assertThat(
            journal.claim(
                new ClaimRequest(
                    new WorkerId("dead"),
                    Set.of(StepKind.DETERMINISTIC),
                    steps,
                    Duration.ofMillis(500))))
        .hasSize(steps);

    WorkerConfig config =
        WorkerConfig.defaults().toBuilder()
            .pollInterval(Duration.ofMillis(200))
            .reconcileInterval(Duration.ofMillis(50))
            .build();
    for (int i = 0; i < 3; i++) {
      start(config, "reconciler-" + i);
    }

    await().atMost(WAIT).until(() -> JournalChecks.allSucceeded(journal, runs));
    for (RunRef run : runs) {
      assertThat(JournalChecks.completionsWith(journal, run, CompletionReason.LEASE_EXPIRED))
          .isEqualTo(1);
      assertThat(JournalChecks.completionsWith(journal, run, CompletionReason.SUCCESS))
          .isEqualTo(1);
    }
  }
}
