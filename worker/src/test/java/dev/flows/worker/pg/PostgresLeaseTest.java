package dev.flows.worker.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.StepKind;
import dev.flows.worker.CancellationToken;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.JournalChecks;
import dev.flows.worker.LeaseLostException;
import dev.flows.worker.LostLeaseReason;
import dev.flows.worker.RenewalRecorder;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.WorkerLease;
import dev.flows.worker.exec.DeterministicExecutor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PostgresLeaseTest {
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration WITHIN = Duration.ofSeconds(1);
  private static final Duration CLOCK_READ_GAP = Duration.ofMillis(50);
  private static final Clock CLOCK = Clock.systemUTC();
  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;

  @BeforeAll
  static void open() {
    db = PgJournals.fresh(PostgresLeaseTest.class);
    journal = PgJournals.journal(db);
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  @Test
  void aStepRunningThreeTimesItsLeaseCompletesWithAtLeastTwoRenewalsAndOneCompletion() {
    RunRef run =
        journal
            .admit(
                StartRun.of(
                    UUID.randomUUID().toString(),
                    Specs.run(Specs.lease(Specs.command("s", "sleep", "6"), LEASE))),
                Admit.queued())
            .runId();
    WorkerConfig config = WorkerConfig.defaults().toBuilder().capacity(1).build();
    Worker worker =
        new Worker(
            journal,
            ExecutorRegistry.of(new DeterministicExecutor(config)),
            config,
            CLOCK,
            new WorkerId("long-step"));
    worker.start();
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> journal.run(run).orElseThrow().status() == RunStatus.SUCCEEDED);
    } finally {
      worker.stop();
    }

    System.out.println("long step (3x lease): renewals=" + worker.stats().renewals());
    assertThat(worker.stats().renewals()).isGreaterThanOrEqualTo(2);
    assertThat(JournalChecks.completions(journal, run)).hasSize(1);
  }

  private ClaimedAttempt startAndClaim() {
    journal.admit(
        StartRun.of(
            UUID.randomUUID().toString(),
            Specs.run(Specs.lease(Specs.command("s", "true"), LEASE))),
        Admit.queued());
    return journal
        .claim(new ClaimRequest(new WorkerId("w"), Set.of(StepKind.DETERMINISTIC), 1, LEASE))
        .getFirst();
  }

  /** Revokes a live lease the way an operator would: its deadline becomes now. */
  private static void revoke(LeaseToken lease) {
    int rows =
        PgJournals.execute(
            db.jdbcUrl(),
            "UPDATE flows.steps SET lease_deadline = clock_timestamp()"
                + " WHERE run_id = ? AND step_id = ? AND lease_id = ?",
            lease.runId().value(),
            lease.stepId(),
            lease.leaseId());
    assertThat(rows).isEqualTo(1);
  }

  @Test
  void aLeaseRevokedUnderRunningWorkCancelsItWithinASecondOfTheLocalDeadline() {
    Instant claimSent = CLOCK.instant();
    ClaimedAttempt attempt = startAndClaim();
    RenewalRecorder renewals = new RenewalRecorder(journal, CLOCK);
    CancellationToken token = new CancellationToken();
    AtomicReference<Instant> canceledAt = new AtomicReference<>();
    token.onCancel(() -> canceledAt.set(CLOCK.instant()));

    assertThatThrownBy(
            () ->
                new WorkerLease(renewals, WorkerConfig.defaults(), CLOCK)
                    .withWorkerLease(
                        attempt,
                        claimSent,
                        token,
                        t -> {
                          revoke(attempt.lease());
                          Thread.sleep(LEASE.multipliedBy(10));
                          return new StepOutcome.Succeeded(JsonNodeFactory.instance.objectNode());
                        }))
        .isInstanceOfSatisfying(
            LeaseLostException.class,
            e -> assertThat(e.reason()).isEqualTo(LostLeaseReason.RENEWAL_EXPIRED));

    Instant localDeadline = renewals.localDeadline(LEASE);
    // The test notes the renewal's send time a moment after the lease does: allow that moment.
    assertThat(Duration.between(localDeadline, canceledAt.get()))
        .isBetween(CLOCK_READ_GAP.negated(), WITHIN);
    assertThat(JournalChecks.completions(journal, attempt.lease().runId())).isEmpty();
  }

  @Test
  void theCompletionOfWorkWhoseLeaseWasRevokedIsRefused() {
    Instant claimSent = CLOCK.instant();
    ClaimedAttempt attempt = startAndClaim();

    assertThatThrownBy(
            () ->
                new WorkerLease(journal, WorkerConfig.defaults(), CLOCK)
                    .withWorkerLease(
                        attempt,
                        claimSent,
                        new CancellationToken(),
                        t -> {
                          revoke(attempt.lease());
                          return new StepOutcome.Succeeded(JsonNodeFactory.instance.objectNode());
                        }))
        .isInstanceOfSatisfying(
            LeaseLostException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(LostLeaseReason.COMPLETION_EXPIRED);
              assertThat(e.refusal()).contains(ErrorCode.LEASE_CONFLICT);
            });
    assertThat(
            JournalChecks.completionsWith(
                journal, attempt.lease().runId(), CompletionReason.SUCCESS))
        .isZero();
  }
}
