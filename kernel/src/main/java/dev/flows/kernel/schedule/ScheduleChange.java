package dev.flows.kernel.schedule;

import java.time.Instant;

/** A change an operator, a flow header or a service makes to a schedule; {@code by} is who. */
public sealed interface ScheduleChange {
  String name();

  String by();

  /** Creates it; the same definition again changes nothing, another is refused schedule_exists. */
  record Create(ScheduleDefinition definition, String by) implements ScheduleChange {
    @Override
    public String name() {
      return definition.name();
    }
  }

  /** Replaces its definition; its next tick is counted from now. */
  record Update(ScheduleDefinition definition, String by) implements ScheduleChange {
    @Override
    public String name() {
      return definition.name();
    }
  }

  /** Creates it, or updates it when its definition differs (a flow header's schedule). */
  record Apply(ScheduleDefinition definition, String by) implements ScheduleChange {
    @Override
    public String name() {
      return definition.name();
    }
  }

  /** Pauses it: no tick is taken until it is resumed. */
  record Pause(String name, String reason, String by) implements ScheduleChange {}

  /** Resumes it; ticks that fell while it was paused are not taken. */
  record Resume(String name, String by) implements ScheduleChange {}

  /** Deletes it; its journal stays. */
  record Delete(String name, String by) implements ScheduleChange {}

  /** A tick now, outside the calendar: waits, as a buffered tick, until no run of it goes on. */
  record Trigger(String name, String by) implements ScheduleChange {}

  /** The calendar's ticks from {@code from} to {@code to} (inclusive), each waiting its turn. */
  record Backfill(String name, Instant from, Instant to, String by) implements ScheduleChange {}
}
