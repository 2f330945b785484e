package dev.flows.kernel.schedule;

import dev.flows.kernel.journal.RunRef;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A schedule as the journal holds it: its definition, whether it is paused, the nominal time of its
 * next calendar tick not yet decided (empty once its calendar ended), the ticks waiting to start
 * (buffered, triggered, backfilled: oldest first), and the last run it started.
 */
public record ScheduleState(
    ScheduleDefinition definition,
    boolean paused,
    Optional<Instant> nextTick,
    List<PendingTick> pending,
    Optional<RunRef> lastRun,
    Instant createdAt,
    Instant updatedAt) {
  public ScheduleState {
    pending = List.copyOf(pending);
  }

  public String name() {
    return definition.name();
  }

  /** When the next calendar tick is due (its nominal time plus its jitter). */
  public Optional<Instant> dueAt() {
    return nextTick.map(definition::dueAt);
  }

  ScheduleState with(
      ScheduleDefinition d,
      boolean p,
      Optional<Instant> next,
      List<PendingTick> waiting,
      Optional<RunRef> last,
      Instant at) {
    return new ScheduleState(d, p, next, waiting, last, createdAt, at);
  }
}
