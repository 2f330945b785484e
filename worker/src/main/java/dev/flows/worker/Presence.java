package dev.flows.worker;

import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.WorkerPresence;
import dev.flows.kernel.journal.WorkerRoster;
import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's row in the {@link WorkerRoster}: written when it starts, refreshed from its
 * reconciler's sweep once {@link #refreshEvery} passed (the roster's interval, or the reconcile
 * interval when that is longer: the sweep runs no more often), removed when it stops cleanly. A
 * failed write is logged and tried again at the next sweep: the worker's claims never wait on it.
 */
final class Presence {
  private static final Logger LOG = LoggerFactory.getLogger(Presence.class);

  private final WorkerRoster roster;
  private final Supplier<ClaimRequest> request;
  private final Duration refreshEvery;
  private long announcedAt;
  private boolean announced;

  Presence(WorkerRoster roster, Supplier<ClaimRequest> request, WorkerConfig config) {
    this.roster = roster;
    this.request = request;
    this.refreshEvery =
        config.reconcileInterval().compareTo(WorkerRoster.REFRESH_INTERVAL) > 0
            ? config.reconcileInterval()
            : WorkerRoster.REFRESH_INTERVAL;
  }

  Duration refreshEvery() {
    return refreshEvery;
  }

  /** Writes the row now. */
  synchronized void announce() {
    ClaimRequest r = request.get();
    WorkerPresence p =
        new WorkerPresence(
            r.workerId(),
            ProcessWorkerId.HOST,
            ProcessHandle.current().pid(),
            r.queues().orElse(Set.of()),
            r.routes().orElse(Set.of()),
            // A worker that names no routes claims every route: the empty prefix says so.
            r.routes().isPresent() ? r.routePrefixes() : Set.of(""),
            refreshEvery);
    try {
      roster.announce(p);
      announced = true;
      announcedAt = System.nanoTime();
    } catch (RuntimeException e) {
      TransientFaults.log(LOG, "announcing this worker failed; trying again next interval", e);
    }
  }

  /** Writes the row again once {@link #refreshEvery} passed since the last write (or a failure). */
  synchronized void refreshIfDue() {
    if (!announced || System.nanoTime() - announcedAt >= refreshEvery.toNanos()) {
      announce();
    }
  }

  /** Removes the row: this worker serves nothing any more. */
  synchronized void withdraw() {
    try {
      roster.withdraw(request.get().workerId());
    } catch (RuntimeException e) {
      TransientFaults.log(LOG, "removing this worker's row failed; it counts as gone later", e);
    }
  }
}
