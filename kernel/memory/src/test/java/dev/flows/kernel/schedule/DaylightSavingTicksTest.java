package dev.flows.kernel.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A daily 02:30 in Berlin, its ticks taken minute by minute on a manual clock over both DST days.
 */
class DaylightSavingTicksTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static Map<LocalDate, Integer> runsPerDay(Instant from, Instant to) {
    ManualClock clock = new ManualClock(from);
    InMemoryJournal journal = new InMemoryJournal(clock);
    journal.changeSchedule(
        new ScheduleChange.Create(
            ScheduleDefinition.of("nightly", "reconcile", Calendar.cron("30 2 * * *"))
                .withZone(BERLIN)
                .withOverlap(Overlap.ALLOW_ALL),
            "test"));
    StartRun template = StartRun.of("t", Specs.run(Specs.agent("a")));
    Map<LocalDate, Integer> days = new TreeMap<>();
    while (clock.instant().isBefore(to)) {
      clock.advance(Duration.ofMinutes(1));
      for (ScheduleEntry e : journal.takeTicks("nightly", template, "test")) {
        if (e instanceof ScheduleEntry.TickStarted t && t.created()) {
          days.merge(t.nominal().atZone(BERLIN).toLocalDate(), 1, Integer::sum);
        }
      }
    }
    return days;
  }

  @Test
  void aDaily0230RunsOnceOnEachDayAroundSpringForward() {
    Map<LocalDate, Integer> days =
        runsPerDay(Instant.parse("2026-03-27T12:00:00Z"), Instant.parse("2026-03-31T12:00:00Z"));
    assertThat(days)
        .containsExactlyEntriesOf(
            new TreeMap<>(
                Map.of(
                    LocalDate.parse("2026-03-28"), 1,
                    LocalDate.parse("2026-03-29"), 1,
                    LocalDate.parse("2026-03-30"), 1,
                    LocalDate.parse("2026-03-31"), 1)));
  }

  @Test
  void aDaily0230RunsOnceOnEachDayAroundFallBack() {
    Map<LocalDate, Integer> days =
        runsPerDay(Instant.parse("2026-10-23T12:00:00Z"), Instant.parse("2026-10-27T12:00:00Z"));
    assertThat(days)
        .containsExactlyEntriesOf(
            new TreeMap<>(
                Map.of(
                    LocalDate.parse("2026-10-24"), 1,
                    LocalDate.parse("2026-10-25"), 1,
                    LocalDate.parse("2026-10-26"), 1,
                    LocalDate.parse("2026-10-27"), 1)));
  }
}
