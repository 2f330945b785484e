package dev.flows.worker.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.StepKind;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.exec.DeterministicExecutor;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Recovery does not wait for a poll or reconcile interval: the survivor's reconciler expires the
 * abandoned lease when its deadline passes, and its claim loop claims the retry when the backoff
 * ends. Both intervals are set far beyond the test's patience, so only that timing can pass it.
 */
class PostgresRecoveryTest {
  private static final Duration LEASE = Duration.ofSeconds(1);
  private static final Duration FAR = Duration.ofMinutes(5);
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;

  @BeforeAll
  static void open() {
    db = PgJournals.fresh(PostgresRecoveryTest.class);
    journal = PgJournals.journal(db);
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  @Test
  void anAbandonedAttemptIsRetriedByAnotherWorkerAfterItsDeadlineWithoutWaitingForAnyInterval() {
    RunRef run =
        journal
            .admit(
                StartRun.of(
                    UUID.randomUUID().toString(),
                    Specs.run(Specs.iterations(Specs.lease(Specs.command("s", "true"), LEASE), 2))),
                Admit.queued())
            .runId();
    // A worker claims the step and dies at once: its lease is never renewed.
    ClaimedAttempt abandoned =
        journal
            .claim(new ClaimRequest(new WorkerId("dead"), Set.of(StepKind.DETERMINISTIC), 1, LEASE))
            .getFirst();
    WorkerConfig config =
        WorkerConfig.defaults().toBuilder()
            .capacity(1)
            .pollInterval(FAR)
            .reconcileInterval(FAR)
            .stopGrace(Duration.ZERO)
            .build();
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
          .atMost(PATIENCE)
          .until(() -> journal.run(run).orElseThrow().status() == RunStatus.SUCCEEDED);
    } finally {
      survivor.stop();
    }

    List<JournalRecord> entries = journal.entries(run);
    JournalRecord expiry = only(entries, JournalEntry.StepCompleted.class, 1);
    JournalRecord retry = only(entries, JournalEntry.StepAttemptStarted.class, 2);
    assertThat(((JournalEntry.StepCompleted) expiry.entry()).reason())
        .isEqualTo(CompletionReason.LEASE_EXPIRED);
    assertThat(expiry.at()).isAfterOrEqualTo(abandoned.leaseDeadline());
    assertThat(retry.at()).isAfter(expiry.at());
    assertThat(((JournalEntry.StepAttemptStarted) retry.entry()).workerId())
        .isEqualTo(new WorkerId("survivor"));
  }

  private static JournalRecord only(
      List<JournalRecord> entries, Class<? extends JournalEntry> type, int attempt) {
    return entries.stream()
        .filter(r -> type.isInstance(r.entry()))
        .filter(
            r ->
                switch (r.entry()) {
                  case JournalEntry.StepCompleted c -> c.attempt() == attempt;
                  case JournalEntry.StepAttemptStarted s -> s.attempt() == attempt;
                  default -> false;
                })
        .findFirst()
        .orElseThrow();
  }
}
