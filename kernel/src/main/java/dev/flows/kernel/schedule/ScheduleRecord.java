package dev.flows.kernel.schedule;

import java.time.Instant;

/** A schedule entry as stored: its position (increasing per journal), time, schedule and author. */
public record ScheduleRecord(
    long seq, Instant at, String schedule, String by, ScheduleEntry entry) {}
