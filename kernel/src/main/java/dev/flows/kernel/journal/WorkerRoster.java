package dev.flows.kernel.journal;

import java.time.Duration;

/**
 * Where workers say which flows they serve ({@code flows.workers} on Postgres), so an operator sees
 * which versions of a flow still have a worker and which can be retired. A worker announces itself
 * when it starts and again every {@link WorkerPresence#refreshEvery()}, and withdraws when it stops
 * cleanly; one that missed three refreshes by the database clock counts as gone ({@code
 * flows.live_workers}).
 */
public interface WorkerRoster {
  /** How often a worker refreshes its row at least (its reconciler's interval when longer). */
  Duration REFRESH_INTERVAL = Duration.ofSeconds(10);

  /** Writes or refreshes the worker's row, its {@code last_seen} the database's now. */
  void announce(WorkerPresence presence);

  /** Removes the worker's row (a clean stop); nothing when it has none. */
  void withdraw(WorkerId worker);
}
