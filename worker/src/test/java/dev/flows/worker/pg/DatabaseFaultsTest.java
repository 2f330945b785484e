package dev.flows.worker.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.migrations.Migrations;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.InProcessExecutor;
import dev.flows.worker.JournalChecks;
import dev.flows.worker.ResilientJournal;
import dev.flows.worker.StepExecutor;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 100 steps in flight while the database goes away: every backend terminated, and separately a
 * server restart. Every run must still succeed, each step exactly once.
 */
class DatabaseFaultsTest {
  private static final int STEPS = 100;
  private static final Duration STEP_TIME = Duration.ofSeconds(6);
  private static final Duration WAIT = Duration.ofMinutes(3);

  /** Holds each attempt long enough for it to be in flight during the fault. */
  private static final StepExecutor HOLD = new InProcessExecutor(STEP_TIME);

  private static Worker worker(Journal journal) {
    WorkerConfig config =
        WorkerConfig.defaults().toBuilder()
            .capacity(STEPS)
            .pollInterval(Duration.ofMillis(500))
            .reconcileInterval(Duration.ofSeconds(1))
            .build();
    return new Worker(
        journal, ExecutorRegistry.of(HOLD), config, Clock.systemUTC(), new WorkerId("faults"));
  }

  private static List<RunRef> startRuns(Journal journal) {
    List<RunRef> runs = new ArrayList<>();
    for (int i = 0; i < STEPS; i++) {
      runs.add(
          journal
              .admit(
                  StartRun.of(
                      UUID.randomUUID().toString(),
                      Specs.run(Specs.iterations(Specs.command("s", "true"), 3))),
                  Admit.queued())
              .runId());
    }
    return runs;
  }

  private static void awaitAllRunning(String jdbcUrl) {
    await()
        .atMost(WAIT)
        .until(
            () ->
                PgJournals.execute(jdbcUrl, "SELECT 1 FROM flows.steps WHERE status = 'running'")
                    == STEPS);
  }

  /**
   * Reads through the same transient-fault retry as the worker: the test's reads see the faults
   * too.
   */
  private static void assertEachSucceededOnce(Journal raw, List<RunRef> runs) {
    Journal journal = new ResilientJournal(raw, WorkerConfig.defaults());
    await().atMost(WAIT).until(() -> JournalChecks.allSucceeded(journal, runs));
    for (RunRef run : runs) {
      assertThat(JournalChecks.completionsWith(journal, run, CompletionReason.SUCCESS))
          .as("successes of %s", run)
          .isEqualTo(1);
    }
  }

  @Test
  void everyRunSucceedsOnceWhenAllBackendsAreTerminatedMidFlight() {
    TestDatabase.Fresh db = PgJournals.fresh(DatabaseFaultsTest.class);
    try (PostgresJournal journal = PgJournals.journal(db)) {
      List<RunRef> runs = startRuns(journal);
      Worker worker = worker(journal);
      worker.start();
      try {
        awaitAllRunning(db.jdbcUrl());
        int terminated =
            PgJournals.execute(
                db.jdbcUrl(),
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND pid <> pg_backend_pid()");
        assertThat(terminated).isPositive();
        assertEachSucceededOnce(journal, runs);
      } finally {
        worker.stop();
      }
    }
  }

  private static EmbeddedPostgres startServer(int port, Path data) throws IOException {
    return EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(data)
        .setCleanDataDirectory(false)
        .setServerConfig("fsync", "off")
        .setServerConfig("synchronous_commit", "off")
        .setServerConfig("max_connections", "100")
        .start();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void everyRunSucceedsOnceWhenTheDatabaseRestartsMidFlight(@TempDir Path data) throws IOException {
    int port = freePort();
    EmbeddedPostgres server = startServer(port, data);
    String url = server.getJdbcUrl("postgres", "postgres");
    Migrations.of(server.getPostgresDatabase()).migrate();
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
      List<RunRef> runs = startRuns(journal);
      Worker worker = worker(journal);
      worker.start();
      try {
        awaitAllRunning(url);
        server.close();
        server = startServer(port, data);
        assertEachSucceededOnce(journal, runs);
      } finally {
        worker.stop();
      }
    } finally {
      server.close();
    }
  }
}
