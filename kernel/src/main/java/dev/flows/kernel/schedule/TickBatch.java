package dev.flows.kernel.schedule;

import java.util.List;

/**
 * What one batch take of due ticks did ({@code Journal#takeDueTicks}): how many due schedules it
 * held (whether or not it took their ticks), and the entries it wrote, schedule by schedule, in the
 * order it took them (schedules it wrote nothing for are absent).
 */
public record TickBatch(int held, List<Taken> taken) {
  public TickBatch {
    taken = List.copyOf(taken);
  }

  /** The entries one schedule's take wrote. */
  public record Taken(String schedule, List<ScheduleEntry> entries) {
    public Taken {
      entries = List.copyOf(entries);
    }
  }

  /** How many ticks the batch decided (started, or journaled not started). */
  public int decided() {
    int n = 0;
    for (Taken t : taken) {
      for (ScheduleEntry e : t.entries()) {
        if (e instanceof ScheduleEntry.TickStarted || e instanceof ScheduleEntry.TickNotStarted) {
          n++;
        }
      }
    }
    return n;
  }
}
