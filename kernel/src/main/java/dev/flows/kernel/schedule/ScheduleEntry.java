package dev.flows.kernel.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.RunRef;
import java.time.Instant;
import java.util.Optional;

/**
 * A schedule's journal entries, a closed set: every change and every tick decided. {@link #type()}
 * is the wire name in {@code flows.schedule_entries.entry_type}.
 */
public sealed interface ScheduleEntry {
  String type();

  record Created(JsonNode definition) implements ScheduleEntry {
    @Override
    public String type() {
      return "schedule.created";
    }
  }

  record Updated(JsonNode definition) implements ScheduleEntry {
    @Override
    public String type() {
      return "schedule.updated";
    }
  }

  record Paused(String reason) implements ScheduleEntry {
    @Override
    public String type() {
      return "schedule.paused";
    }
  }

  record Resumed() implements ScheduleEntry {
    @Override
    public String type() {
      return "schedule.resumed";
    }
  }

  record Deleted() implements ScheduleEntry {
    @Override
    public String type() {
      return "schedule.deleted";
    }
  }

  /** Ticks added to wait their turn: one triggered, or a backfill's {@code count}. */
  record TicksRequested(TickSource source, Instant from, Instant to, int count)
      implements ScheduleEntry {
    @Override
    public String type() {
      return "schedule.ticks.requested";
    }
  }

  /**
   * A tick started run {@code runId} ({@code created} false when its admission key had admitted it
   * already); with {@link TickDecision#CANCELED_OTHER}, {@code canceled} is the run it ended.
   */
  record TickStarted(
      Instant nominal,
      TickSource source,
      TickDecision decision,
      RunRef runId,
      boolean created,
      Optional<RunRef> canceled)
      implements ScheduleEntry {
    @Override
    public String type() {
      return "schedule.tick.started";
    }
  }

  /** A tick not started now: skipped or buffered, as {@code decision} says. */
  record TickNotStarted(Instant nominal, TickSource source, TickDecision decision)
      implements ScheduleEntry {
    @Override
    public String type() {
      return decision == TickDecision.BUFFERED ? "schedule.tick.buffered" : "schedule.tick.skipped";
    }
  }
}
