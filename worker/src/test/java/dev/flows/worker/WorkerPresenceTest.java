package dev.flows.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.journal.WorkerPresence;
import dev.flows.kernel.journal.WorkerRoster;
import dev.flows.worker.exec.DeterministicExecutor;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A worker's row in the {@link WorkerRoster}: written at start, again on failure, gone at stop. */
class WorkerPresenceTest {
  private final Clock clock = Clock.systemUTC();
  private final WorkerConfig config =
      WorkerConfig.defaults().toBuilder()
          .pollInterval(Duration.ofMillis(50))
          .reconcileInterval(Duration.ofMillis(50))
          .stopGrace(Duration.ofMillis(200))
          .build();

  /**
   * Records what the worker wrote, and each announcement tried (by which thread, and whether it
   * failed), in order; fails the first {@code failures} announcements.
   */
  private static final class Recording implements WorkerRoster {
    final List<WorkerPresence> announced = new CopyOnWriteArrayList<>();
    final List<String> tried = new CopyOnWriteArrayList<>();
    final List<WorkerId> withdrawn = new CopyOnWriteArrayList<>();
    final AtomicInteger failures;

    Recording(int failures) {
      this.failures = new AtomicInteger(failures);
    }

    @Override
    public void announce(WorkerPresence presence) {
      String by = Thread.currentThread().getName();
      if (failures.getAndDecrement() > 0) {
        tried.add(by + ": failed");
        throw new FlowsException(ErrorCode.DATABASE_UNAVAILABLE, "down", "test", "wait");
      }
      tried.add(by + ": announced");
      announced.add(presence);
    }

    @Override
    public void withdraw(WorkerId worker) {
      withdrawn.add(worker);
    }
  }

  private Worker worker(WorkerRoster roster) {
    Worker w =
        new Worker(
            new InMemoryJournal(clock),
            ExecutorRegistry.of(new DeterministicExecutor(config)),
            config,
            clock,
            new WorkerId("w-presence"));
    w.addRoutes(() -> Set.of("flow:triage@1", "flow:triage@2"));
    w.serveQueues(Set.of("default", "billing"));
    w.announceTo(roster);
    return w;
  }

  @Test
  void aWorkerAnnouncesWhatItServesWhenItStartsAndWithdrawsWhenItStopsCleanly() {
    Recording roster = new Recording(0);
    Worker w = worker(roster);
    assertThat(roster.announced).isEmpty();
    w.start();
    assertThat(roster.announced).hasSize(1);
    WorkerPresence p = roster.announced.getFirst();
    assertThat(p.worker()).isEqualTo(new WorkerId("w-presence"));
    assertThat(p.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(p.queues()).containsExactlyInAnyOrder("default", "billing");
    assertThat(p.routes()).contains("flow:triage@1", "flow:triage@2", "deterministic");
    assertThat(p.refreshEvery()).isEqualTo(WorkerRoster.REFRESH_INTERVAL);
    assertThat(roster.withdrawn).isEmpty();

    w.stop();
    assertThat(roster.withdrawn).containsExactly(new WorkerId("w-presence"));
  }

  @Test
  void anAnnouncementThatFailedIsTriedAgainAtTheReconcilersNextSweepAndClaimsGoOn() {
    Recording roster = new Recording(1);
    Worker w = worker(roster);
    try {
      w.start();
      assertThat(w.claiming()).isTrue();
      // The order, not a timing: the reconciler may sweep before or after these lines run.
      await().atMost(Duration.ofSeconds(30)).until(() -> roster.announced.size() == 1);
      assertThat(roster.tried)
          .as("start's announcement failed; the reconciler's sweep announced it")
          .startsWith(
              Thread.currentThread().getName() + ": failed",
              "flows-reconcile-w-presence: announced");
    } finally {
      w.stop();
    }
  }

  @Test
  void aWorkerIsAnnouncedOnceAndBeforeItStarts() {
    Worker w = worker(new Recording(0));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> w.announceTo(new Recording(0)))
        .isInstanceOf(IllegalStateException.class);
  }
}
