package dev.flows.kernel.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExclusionTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static ScheduleDefinition daily0230Berlin(String... exclude) {
    return ScheduleDefinition.of("nightly", "reconcile", Calendar.cron("30 2 * * *"))
        .withZone(BERLIN)
        .withExclude(List.of(exclude).stream().map(Exclusion::parse).toList());
  }

  private static ScheduleDefinition every(Duration interval, ZoneId zone, String... exclude) {
    return ScheduleDefinition.of("sync", "sync", Calendar.every(interval, Duration.ZERO))
        .withZone(zone)
        .withExclude(List.of(exclude).stream().map(Exclusion::parse).toList());
  }

  private static List<Instant> ticks(ScheduleDefinition d, Instant from, int n) {
    List<Instant> out = new ArrayList<>();
    Instant t = from;
    for (int i = 0; i < n; i++) {
      t = d.nextTickAfter(t).orElseThrow();
      out.add(t);
    }
    return out;
  }

  @Test
  void anExcludedSpringForwardDayHasNoTickAndTheDaysAroundItKeepTheirs() {
    List<Instant> t =
        ticks(daily0230Berlin("2026-03-29"), Instant.parse("2026-03-27T12:00:00Z"), 2);

    assertThat(t)
        .extracting(i -> i.atZone(BERLIN).toLocalDateTime().toString())
        .containsExactly("2026-03-28T02:30", "2026-03-30T02:30");
  }

  @Test
  void aDateRangeExcludesEachOfItsDaysBothEndsIncluded() {
    List<Instant> t =
        ticks(daily0230Berlin("2026-12-24..2026-12-26"), Instant.parse("2026-12-22T12:00:00Z"), 2);

    assertThat(t)
        .extracting(i -> i.atZone(BERLIN).toLocalDate().getDayOfMonth())
        .containsExactly(23, 27);
  }

  @Test
  void anHourlyIntervalSkipsBothTwoOClockHoursOfTheFallBackDayWhenTheHourIsExcluded() {
    // 2026-10-25 in Berlin: 02:00 CEST (00:00Z), then 02:00 CET (01:00Z).
    List<Instant> t =
        ticks(
            every(Duration.ofHours(1), BERLIN, "* 2 * * *"),
            Instant.parse("2026-10-24T22:30:00Z"),
            3);

    assertThat(t)
        .containsExactly(
            Instant.parse("2026-10-24T23:00:00Z"),
            Instant.parse("2026-10-25T02:00:00Z"),
            Instant.parse("2026-10-25T03:00:00Z"));
  }

  @Test
  void aFiveFieldCronExcludesEverySecondOfItsMinuteAndASixFieldCronOneSecond() {
    ZoneId utc = ZoneId.of("UTC");
    Instant from = Instant.parse("2026-01-01T11:59:58Z");

    assertThat(ticks(every(Duration.ofSeconds(1), utc, "0 12 * * *"), from, 2))
        .containsExactly(
            Instant.parse("2026-01-01T11:59:59Z"), Instant.parse("2026-01-01T12:01:00Z"));
    assertThat(ticks(every(Duration.ofSeconds(1), utc, "0 0 12 * * *"), from, 2))
        .containsExactly(
            Instant.parse("2026-01-01T11:59:59Z"), Instant.parse("2026-01-01T12:00:01Z"));
  }

  @Test
  void aWeekendCronLeavesADailyScheduleItsWeekdays() {
    List<Instant> t =
        ticks(daily0230Berlin("* * * * SAT,SUN"), Instant.parse("2026-06-05T12:00:00Z"), 1);

    assertThat(t.getFirst().atZone(BERLIN).getDayOfWeek().toString()).isEqualTo("MONDAY");
  }

  @Test
  void aOneSecondScheduleWithWeekendsExcludedGoesOnAtMondayMidnight() {
    // Friday 2026-06-05 23:59:59 in Berlin.
    List<Instant> t =
        ticks(
            every(Duration.ofSeconds(1), BERLIN, "* * * * SAT,SUN"),
            Instant.parse("2026-06-05T21:59:58Z"),
            2);

    assertThat(t)
        .containsExactly(
            Instant.parse("2026-06-05T21:59:59Z"), Instant.parse("2026-06-07T22:00:00Z"));
  }

  @Test
  void aBackfillRequestsOnlyTheTicksNoExclusionCovers() {
    ScheduleState s =
        Schedules.change(
                java.util.Optional.empty(),
                new ScheduleChange.Create(daily0230Berlin("2026-03-29"), "ops"),
                Instant.parse("2026-04-01T00:00:00Z"),
                dev.flows.kernel.journal.PayloadLimits.DEFAULTS)
            .schedule();
    Schedules.Changed c =
        Schedules.change(
            java.util.Optional.of(s),
            new ScheduleChange.Backfill(
                "nightly",
                Instant.parse("2026-03-27T00:00:00Z"),
                Instant.parse("2026-03-31T00:00:00Z"),
                "ops"),
            Instant.parse("2026-04-01T00:00:00Z"),
            dev.flows.kernel.journal.PayloadLimits.DEFAULTS);

    assertThat(c.schedule().pending())
        .extracting(p -> p.nominal().atZone(BERLIN).toLocalDate().getDayOfMonth())
        .containsExactly(27, 28, 30);
  }

  @Test
  void exclusionsCoveringEveryTickLeaveTheScheduleWithoutANextTick() {
    assertThat(
            every(Duration.ofSeconds(1), ZoneId.of("UTC"), "* * * * *")
                .nextTickAfter(Instant.parse("2026-01-01T00:00:00Z")))
        .isEmpty();
  }

  @Test
  void exclusionsRoundTripThroughTheDefinitionsJson() {
    ScheduleDefinition d = daily0230Berlin("2026-12-25", "2026-12-30..2027-01-01", "0 0 * * SUN");

    assertThat(d.toJson().get("exclude").toString())
        .isEqualTo("[\"2026-12-25\",\"2026-12-30..2027-01-01\",\"0 0 * * SUN\"]");
    assertThat(ScheduleDefinition.fromJson(d.toJson())).isEqualTo(d);
    assertThat(daily0230Berlin().toJson().has("exclude")).isFalse();
  }

  @Test
  void aReversedRangeABadDateAndABadCronAreRefusedAsInvalidInput() {
    for (String bad : List.of("2026-12-26..2026-12-24", "2026-02-30", "every sunday")) {
      assertThatThrownBy(() -> Exclusion.parse(bad))
          .as(bad)
          .isInstanceOf(FlowsException.class)
          .extracting(e -> ((FlowsException) e).code())
          .isEqualTo(ErrorCode.INVALID_INPUT);
    }
  }
}
