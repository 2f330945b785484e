package dev.flows.worker.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.JournalChecks;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.exec.DeterministicExecutor;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Worker processes that die or are stopped for real, observed through the Postgres journal. */
class ChildJvmWorkerTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;

  @BeforeAll
  static void open() {
    db = PgJournals.fresh(ChildJvmWorkerTest.class);
    journal = PgJournals.journal(db);
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  private static RunRef start(StepSpec step) {
    return journal
        .admit(StartRun.of(UUID.randomUUID().toString(), Specs.run(step)), Admit.queued())
        .runId();
  }

  private static Optional<JournalEntry.StepAttemptStarted> firstAttempt(RunRef run) {
    return journal.entries(run).stream()
        .map(JournalRecord::entry)
        .filter(e -> e instanceof JournalEntry.StepAttemptStarted)
        .map(e -> (JournalEntry.StepAttemptStarted) e)
        .findFirst();
  }

  @Test
  void afterAWorkerIsKilledMidStepAnotherFinishesItOnceItsLeaseExpires() throws Exception {
    RunRef run =
        start(
            Specs.iterations(
                Specs.lease(Specs.command("s", "sleep", "4"), Duration.ofSeconds(2)), 2));
    try (ChildWorker child = ChildWorker.start(db.jdbcUrl(), Map.of("pollMs", "200"))) {
      await().atMost(WAIT).until(() -> firstAttempt(run).isPresent());
      child.process().destroyForcibly(); // SIGKILL
      assertThat(child.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    WorkerConfig config =
        WorkerConfig.defaults().toBuilder().reconcileInterval(Duration.ofMillis(300)).build();
    Worker survivor =
        new Worker(
            journal,
            ExecutorRegistry.of(new DeterministicExecutor(config)),
            config,
            Clock.systemUTC(),
            new WorkerId("survivor"));
    survivor.start();
    try {
      await()
          .atMost(WAIT)
          .until(() -> journal.run(run).orElseThrow().status() == RunStatus.SUCCEEDED);
    } finally {
      survivor.stop();
    }

    List<JournalEntry.StepCompleted> done = JournalChecks.completions(journal, run);
    assertThat(done)
        .extracting(JournalEntry.StepCompleted::reason)
        .containsExactly(CompletionReason.LEASE_EXPIRED, CompletionReason.SUCCESS);
    assertThat(done.getFirst().attempt()).isEqualTo(1);
    assertThat(done.getLast().attempt()).isEqualTo(2);
  }

  @Test
  void aCleanSigtermLeavesNothingLeased() throws Exception {
    RunRef run = start(Specs.iterations(Specs.command("s", "sleep", "60"), 2));
    try (ChildWorker child =
        ChildWorker.start(
            db.jdbcUrl(), Map.of("pollMs", "200", "stopGraceMs", "500", "killGraceMs", "500"))) {
      await()
          .atMost(WAIT)
          .until(
              () ->
                  journal.run(run).orElseThrow().steps().getFirst().status() == StepStatus.RUNNING);
      child.process().destroy(); // SIGTERM
      assertThat(child.process().waitFor(60, TimeUnit.SECONDS)).as(child.log()).isTrue();
    }

    assertThat(
            PgJournals.execute(db.jdbcUrl(), "SELECT 1 FROM flows.steps WHERE status = 'running'"))
        .isZero();
    assertThat(journal.run(run).orElseThrow().steps().getFirst().status())
        .isEqualTo(StepStatus.READY);
    JournalEntry.StepCompleted c = JournalChecks.completions(journal, run).getFirst();
    assertThat(c.reason()).isEqualTo(CompletionReason.WORKER_ERROR);
    assertThat(c.trajectoryTail().orElseThrow().get("cause").asText()).isEqualTo("worker_shutdown");
    long pgid = c.trajectoryTail().orElseThrow().get("pgid").asLong();
    assertThat(ProcessHandle.of(pgid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
  }
}
