package dev.flows.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepKind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class LeaseKeeperTest {
  private static final Duration LONG_LEASE = Duration.ofSeconds(60);
  private static final Duration SHORT_LEASE = Duration.ofMillis(900);

  /** Long enough for a keeper that ends at the last release to have ended. */
  private static final Duration THREAD_END = Duration.ofMillis(500);

  private final Clock clock = Clock.systemUTC();
  private final InMemoryJournal inMemory = new InMemoryJournal(clock);
  private final LeaseKeeper keeper = new LeaseKeeper(inMemory, WorkerConfig.defaults(), clock);

  private ClaimedAttempt claimed(Duration lease) {
    inMemory.admit(
        new StartRun(
            Optional.empty(),
            UUID.randomUUID().toString(),
            Specs.run(Specs.lease(Specs.command("s", "true"), lease)),
            Optional.empty(),
            "test"),
        Admit.queued());
    List<ClaimedAttempt> got =
        inMemory.claim(
            new ClaimRequest(new WorkerId("w"), Set.of(StepKind.DETERMINISTIC), 1, lease));
    assertThat(got).hasSize(1);
    return got.getFirst();
  }

  private LeaseKeeper.Held hold(Duration lease) {
    ClaimedAttempt a = claimed(lease);
    return keeper.hold(
        a.lease(), lease, clock.instant(), new CancellationToken(), Optional.empty());
  }

  @Test
  void attemptsThatFollowOneAnotherAreKeptByOneThreadNotOneThreadEach() throws Exception {
    LeaseKeeper.Held first = hold(LONG_LEASE);
    Thread thread = keeper.thread().orElseThrow();
    keeper.release(first);
    Thread.sleep(THREAD_END.toMillis());

    LeaseKeeper.Held second = hold(LONG_LEASE);

    assertThat(keeper.thread()).containsSame(thread);
    assertThat(thread.isAlive()).isTrue();
    keeper.release(second);
  }

  @Test
  void theKeepersThreadEndsByItselfOnceNoLeaseWasHeldForItsLinger() throws Exception {
    keeper.release(hold(LONG_LEASE));
    Thread thread = keeper.thread().orElseThrow();

    thread.join(LeaseKeeper.IDLE_LINGER.multipliedBy(3));

    assertThat(thread.isAlive()).isFalse();
    assertThat(keeper.thread()).isEmpty();
  }

  @Test
  void aShortLeaseHeldWhileTheKeeperSleepsUntilALongOnesRenewalIsStillRenewedInTime()
      throws Exception {
    LeaseKeeper.Held slow = hold(LONG_LEASE);
    // The keeper now sleeps until the long lease's renewal, a third of a minute away.
    Thread.sleep(THREAD_END.toMillis());
    LeaseKeeper.Held quick = hold(SHORT_LEASE);
    Instant heldAt = clock.instant();

    Thread.sleep(SHORT_LEASE.multipliedBy(3).toMillis());

    LeaseKeeper.Snapshot seen = quick.snapshot();
    assertThat(seen.expired()).as("renewed before its local deadline").isFalse();
    assertThat(seen.renewals()).isGreaterThanOrEqualTo(2);
    assertThat(seen.deadline()).isAfter(heldAt.plus(SHORT_LEASE));
    keeper.release(quick);
    keeper.release(slow);
  }
}
