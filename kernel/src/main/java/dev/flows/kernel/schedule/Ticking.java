package dev.flows.kernel.schedule;

import dev.flows.kernel.lifecycle.RunStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The rule of taking ticks, shared by every journal: given a schedule, the status of the last run
 * it started and the journal's now, which ticks are decided and how. A journal applies the {@link
 * Plan} in one transaction under the schedule's lock, so whichever worker takes the ticks first
 * decides each tick once; the run of a tick is admitted under {@link Schedules#admissionKey}, so it
 * is one run even if two journals' transactions could meet.
 */
public final class Ticking {
  /** The most ticks one take decides: a long downtime is caught up over several takes. */
  public static final int MAX_TICKS_PER_TAKE = 1_000;

  private Ticking() {}

  /** One tick decided. */
  public record Decided(Instant nominal, TickSource source, TickDecision decision) {}

  /**
   * What a take does: pause the schedule (a run failed and it pauses on failure; then nothing
   * else), or decide {@code ticks} in order (the ones that start admitted in that order, a {@link
   * TickDecision#CANCELED_OTHER} one after canceling the run started before it), and leave the
   * calendar's cursor at {@code nextTick} and {@code pending} waiting.
   */
  public record Plan(
      Optional<String> pauseReason,
      List<Decided> ticks,
      Optional<Instant> nextTick,
      List<PendingTick> pending) {
    public Plan {
      ticks = List.copyOf(ticks);
      pending = List.copyOf(pending);
    }

    /** Whether the take writes anything. */
    public boolean changes(ScheduleState s) {
      return pauseReason.isPresent()
          || !ticks.isEmpty()
          || !nextTick.equals(s.nextTick())
          || !pending.equals(s.pending());
    }
  }

  /** Whether schedule {@code s} has anything to decide at {@code now} (a read's filter). */
  public static boolean due(ScheduleState s, Optional<RunStatus> lastRun, Instant now) {
    if (s.paused()) {
      return false;
    }
    boolean calendar = s.dueAt().filter(d -> !d.isAfter(now)).isPresent();
    boolean released = !s.pending().isEmpty() && lastRun.map(RunStatus::terminal).orElse(true);
    return calendar || released;
  }

  /**
   * The plan for schedule {@code s} at {@code now}, the last run it started being in status {@code
   * lastRun} (empty when it started none, or that run is gone).
   */
  public static Plan plan(ScheduleState s, Optional<RunStatus> lastRun, Instant now) {
    ScheduleDefinition d = s.definition();
    if (s.paused()) {
      return new Plan(Optional.empty(), List.of(), s.nextTick(), s.pending());
    }
    if (d.pauseOnFailure() && lastRun.filter(st -> st == RunStatus.FAILED).isPresent()) {
      return new Plan(
          Optional.of("pause-on-failure: run " + s.lastRun().orElseThrow() + " failed"),
          List.of(),
          s.nextTick(),
          s.pending());
    }
    boolean running = lastRun.filter(st -> !st.terminal()).isPresent();
    Deque<PendingTick> pending = new ArrayDeque<>(s.pending());
    List<Decided> ticks = new ArrayList<>();
    if (!pending.isEmpty() && (!running || d.overlap() == Overlap.ALLOW_ALL)) {
      PendingTick p = pending.removeFirst();
      ticks.add(new Decided(p.nominal(), p.source(), TickDecision.STARTED));
      running = true;
    }
    Optional<Instant> cursor = s.nextTick();
    Duration window = d.catchUpWindow();
    while (cursor.isPresent()
        && !d.dueAt(cursor.get()).isAfter(now)
        && ticks.size() < MAX_TICKS_PER_TAKE) {
      Instant nominal = cursor.get();
      TickDecision decision;
      if (Duration.between(d.dueAt(nominal), now).compareTo(window) > 0) {
        decision = TickDecision.SKIPPED_MISSED;
      } else if (!running) {
        decision = TickDecision.STARTED;
      } else {
        decision = overlapping(d.overlap(), pending.size());
      }
      if (decision == TickDecision.BUFFERED) {
        pending.addLast(new PendingTick(nominal, TickSource.CALENDAR));
      }
      running |= decision.starts();
      ticks.add(new Decided(nominal, TickSource.CALENDAR, decision));
      cursor = d.nextTickAfter(nominal);
    }
    return new Plan(Optional.empty(), ticks, cursor, List.copyOf(pending));
  }

  /** A tick's decision while a run of its schedule goes on. */
  private static TickDecision overlapping(Overlap policy, int waiting) {
    return switch (policy) {
      case SKIP -> TickDecision.SKIPPED_OVERLAP;
      case BUFFER_ONE -> waiting == 0 ? TickDecision.BUFFERED : TickDecision.SKIPPED_BUFFER_FULL;
      case BUFFER_ALL -> TickDecision.BUFFERED;
      case CANCEL_OTHER -> TickDecision.CANCELED_OTHER;
      case ALLOW_ALL -> TickDecision.STARTED_ALONGSIDE;
    };
  }
}
