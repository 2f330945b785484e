package dev.flows.kernel.schedule;

import java.util.Arrays;

/** Where a tick came from: the calendar, {@code schedules trigger}, or {@code backfill}. */
public enum TickSource {
  CALENDAR("calendar"),
  TRIGGER("trigger"),
  BACKFILL("backfill");

  private final String wire;

  TickSource(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static TickSource fromWire(String wire) {
    return Arrays.stream(values()).filter(s -> s.wire.equals(wire)).findFirst().orElseThrow();
  }
}
