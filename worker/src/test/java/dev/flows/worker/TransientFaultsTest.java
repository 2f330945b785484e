package dev.flows.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.LeaseConflictException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepKind;
import java.net.ConnectException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TransientFaultsTest {
  /** What the Postgres journal makes of a lost connection (its SqlErrors). */
  private static FlowsException dbError(Throwable cause) {
    return new FlowsException(ErrorCode.DATABASE_UNAVAILABLE, "x", "", "", true, cause);
  }

  @Test
  void theJournalsVerdictDecides() {
    assertThat(
            TransientFaults.isTransient(
                new FlowsException(ErrorCode.DATABASE_UNAVAILABLE, "down", "", "")))
        .isTrue();
    assertThat(
            TransientFaults.isTransient(
                new FlowsException(ErrorCode.DATABASE_ERROR, "deadlock", "", "", true, null)))
        .isTrue();
    assertThat(
            TransientFaults.isTransient(
                new FlowsException(ErrorCode.DATABASE_ERROR, "syntax", "", "", false, null)))
        .isFalse();
  }

  @Test
  void aRefusedConnectionUnderneathAnythingIsTransient() {
    assertThat(TransientFaults.isTransient(new RuntimeException(new ConnectException("refused"))))
        .isTrue();
  }

  @Test
  void aJournalRefusalIsNeverTransientWhateverItsCause() {
    FlowsException refusal =
        new FlowsException(ErrorCode.LEASE_CONFLICT, "x", "", "", false, new ConnectException("x"));
    assertThat(TransientFaults.isTransient(refusal)).isFalse();
  }

  private static final WorkerConfig FAST =
      WorkerConfig.defaults().toBuilder()
          .dbRetry(4, Duration.ofMillis(1), Duration.ofMillis(5))
          .build();

  @Test
  void aTransientFaultIsRetriedUntilTheCallSucceeds() {
    InMemoryJournal inMemory = new InMemoryJournal(Clock.systemUTC());
    AtomicInteger calls = new AtomicInteger();
    ResilientJournal journal =
        new ResilientJournal(
            new ForwardingJournal(inMemory) {
              @Override
              public java.util.List<dev.flows.kernel.journal.ExpiredAttempt> expireLeases() {
                if (calls.incrementAndGet() < 3) {
                  throw dbError(new SQLException("terminating connection", "57P01"));
                }
                return super.expireLeases();
              }
            },
            FAST);

    assertThat(journal.expireLeases()).isEmpty();
    assertThat(calls).hasValue(3);
  }

  @Test
  void retriesAreBoundedAndTheLastFaultSurfaces() {
    AtomicInteger calls = new AtomicInteger();
    ResilientJournal journal =
        new ResilientJournal(
            new ForwardingJournal(new InMemoryJournal(Clock.systemUTC())) {
              @Override
              public java.util.List<dev.flows.kernel.journal.ExpiredAttempt> expireLeases() {
                calls.incrementAndGet();
                throw dbError(new SQLException("refused", "08001"));
              }
            },
            FAST);

    assertThatThrownBy(journal::expireLeases).isInstanceOf(FlowsException.class);
    assertThat(calls).hasValue(4);
  }

  @Test
  void aCompletionWhoseAnswerWasLostIsAnsweredFromTheJournal() {
    InMemoryJournal inMemory = new InMemoryJournal(Clock.systemUTC());
    inMemory.admit(
        StartRun.of(UUID.randomUUID().toString(), Specs.run(Specs.command("s", "true"))),
        Admit.queued());
    ClaimedAttempt a =
        inMemory
            .claim(
                new ClaimRequest(
                    new WorkerId("w"), Set.of(StepKind.DETERMINISTIC), 1, Duration.ofSeconds(30)))
            .getFirst();
    AtomicInteger calls = new AtomicInteger();
    ResilientJournal journal =
        new ResilientJournal(
            new ForwardingJournal(inMemory) {
              @Override
              public CompletionAck complete(LeaseToken lease, StepOutcome outcome) {
                CompletionAck ack = super.complete(lease, outcome);
                if (calls.incrementAndGet() == 1) {
                  // Committed, but the connection dropped before the answer came back.
                  throw dbError(new SQLException("connection reset", "08006"));
                }
                return ack;
              }
            },
            FAST);

    CompletionAck ack =
        journal.complete(
            a.lease(), new StepOutcome.Succeeded(JsonNodeFactory.instance.objectNode()));

    assertThat(ack.reason()).isEqualTo(CompletionReason.SUCCESS);
    assertThat(calls).hasValue(1);
  }

  @Test
  void aLeaseConflictIsNotRetried() {
    AtomicInteger calls = new AtomicInteger();
    ResilientJournal journal =
        new ResilientJournal(
            new ForwardingJournal(new InMemoryJournal(Clock.systemUTC())) {
              @Override
              public Instant heartbeat(LeaseToken lease) {
                calls.incrementAndGet();
                throw new LeaseConflictException("gone", lease.place());
              }
            },
            FAST);
    LeaseToken token = new LeaseToken(dev.flows.kernel.journal.RunRef.random(), "s", 1, "lease_x");

    assertThatThrownBy(() -> journal.heartbeat(token)).isInstanceOf(LeaseConflictException.class);
    assertThat(calls).hasValue(1);
  }
}
