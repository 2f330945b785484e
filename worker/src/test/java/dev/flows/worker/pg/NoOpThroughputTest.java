package dev.flows.worker.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.InProcessExecutor;
import dev.flows.worker.StepExecutor;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.exec.DeterministicExecutor;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Measures no-op deterministic steps per second through one worker on the Postgres journal and
 * prints it (no timed assertion: the machine is shared). The first pass spawns {@code true} in its
 * own process group per step; the second answers in-process, so the difference is the cost of the
 * process launch and group cleanup, and the second alone is the journal's round trips.
 */
class NoOpThroughputTest {
  private static final int STEPS = 300;

  /** Answers success without a process: the journal's share of a step. */
  private static final StepExecutor IN_PROCESS = new InProcessExecutor(Duration.ZERO);

  private static double stepsPerSecond(TestDatabase.Fresh db, StepExecutor executor) {
    try (PostgresJournal journal = PgJournals.journal(db)) {
      List<RunRef> runs = new ArrayList<>();
      for (int i = 0; i < STEPS; i++) {
        runs.add(
            journal
                .admit(
                    StartRun.of(
                        UUID.randomUUID().toString(), Specs.run(Specs.command("s", "true"))),
                    Admit.queued())
                .runId());
      }
      WorkerConfig config = WorkerConfig.defaults();
      Worker worker = new Worker(journal, ExecutorRegistry.of(executor), config, Clock.systemUTC());
      long started = System.nanoTime();
      worker.start();
      try {
        await().atMost(Duration.ofMinutes(3)).until(() -> worker.stats().completed() == STEPS);
      } finally {
        worker.stop();
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      assertThat(runs).allMatch(r -> journal.run(r).orElseThrow().status() == RunStatus.SUCCEEDED);
      return STEPS / seconds;
    }
  }

  @Test
  void oneWorkerRunsManyNoOpStepsToSuccess() {
    TestDatabase.Fresh db = PgJournals.fresh(NoOpThroughputTest.class);
    double spawned = stepsPerSecond(db, new DeterministicExecutor(WorkerConfig.defaults()));
    double inProcess = stepsPerSecond(db, IN_PROCESS);
    System.out.printf(
        "no-op deterministic steps, one worker, capacity %d, %d steps: %.1f steps/s"
            + " (in-process no-op executor, journal only: %.1f steps/s)%n",
        WorkerConfig.DEFAULT_CAPACITY, STEPS, spawned, inProcess);
  }
}
