package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.schedule.Calendar;
import dev.flows.kernel.schedule.Exclusion;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code flows.schedules_overview} gives a page of schedules. */
class SchedulesOverviewTest {
  @Test
  void theOverviewShowsTheDefinitionsPoliciesTheLastTickAndItsRun() throws Exception {
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    ManualClock clock = new ManualClock(start);
    try (PostgresFixture f = PostgresFixture.create("overview", clock)) {
      ScheduleDefinition d =
          ScheduleDefinition.of(
                  "sync", "nightly", Calendar.every(Duration.ofSeconds(1), Duration.ZERO))
              .withCatchUpWindow(Duration.ofSeconds(10))
              .withPauseOnFailure(true)
              .withQueue("batch")
              .withExclude(List.of(Exclusion.parse("2026-12-25")));
      f.journal().changeSchedule(new ScheduleChange.Create(d, "ops"));
      clock.advance(Duration.ofSeconds(1));
      f.journal()
          .takeTicks("sync", StartRun.of("template", Specs.run("one", Specs.llm("a"))), "w1");

      List<String> row =
          f.rows(
                  "SELECT excluded, catch_up_window, pause_on_failure, queue, last_tick_at,"
                      + " last_run_created_at IS NOT NULL, last_run_status, definition ->> 'flow',"
                      + " next_tick_at FROM flows.schedules_overview WHERE name = 'sync'")
              .getFirst();

      assertThat(row.subList(0, 4)).containsExactly("[\"2026-12-25\"]", "00:00:10", "t", "batch");
      assertThat(row.get(4)).startsWith("2026-01-01 00:00:01");
      assertThat(row.subList(5, 8)).containsExactly("t", "running", "nightly");
      assertThat(row.get(8)).startsWith("2026-01-01 00:00:02");
    }
  }
}
