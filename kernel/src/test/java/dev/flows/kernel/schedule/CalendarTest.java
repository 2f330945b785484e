package dev.flows.kernel.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CalendarTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static List<ZonedDateTime> ticks(Calendar c, ZoneId zone, Instant from, int n) {
    List<ZonedDateTime> out = new ArrayList<>();
    Instant t = from;
    for (int i = 0; i < n; i++) {
      t = c.nextAfter(t, zone).orElseThrow();
      out.add(t.atZone(zone));
    }
    return out;
  }

  @Test
  void aDaily0230TicksOnTheSpringForwardDayAtTheShiftedTime() {
    List<ZonedDateTime> t =
        ticks(Calendar.cron("30 2 * * *"), BERLIN, Instant.parse("2026-03-27T12:00:00Z"), 3);

    assertThat(t).extracting(z -> z.toLocalDate().getDayOfMonth()).containsExactly(28, 29, 30);
    assertThat(t.get(1).toLocalTime().toString()).isEqualTo("03:30");
    assertThat(t.get(2).toLocalTime().toString()).isEqualTo("02:30");
  }

  @Test
  void aDaily0230TicksOnceOnTheFallBackDay() {
    List<ZonedDateTime> t =
        ticks(Calendar.cron("30 2 * * *"), BERLIN, Instant.parse("2026-10-24T12:00:00Z"), 2);

    assertThat(t).extracting(z -> z.toLocalDate().getDayOfMonth()).containsExactly(25, 26);
  }

  @Test
  void anEveryMinuteCronTicksOncePerRealMinuteAcrossTheSpringForwardGap() {
    Instant from = Instant.parse("2026-03-29T00:58:00Z"); // 01:58 CET
    List<ZonedDateTime> t = ticks(Calendar.cron("* * * * *"), BERLIN, from, 4);

    assertThat(t)
        .extracting(ZonedDateTime::toInstant)
        .containsExactly(
            from.plusSeconds(60),
            from.plusSeconds(120),
            from.plusSeconds(180),
            from.plusSeconds(240));
  }

  @Test
  void sixFieldsCarrySeconds() {
    Instant from = Instant.parse("2026-01-01T00:00:00Z");
    assertThat(Calendar.cron("*/5 * * * * *").nextAfter(from, ZoneId.of("UTC")))
        .contains(from.plusSeconds(5));
  }

  @Test
  void anIntervalTicksAtTheEpochPlusItsOffsetPlusWholeIntervals() {
    Calendar every = Calendar.every(Duration.ofMinutes(10), Duration.ofMinutes(3));
    assertThat(every.nextAfter(Instant.parse("2026-01-01T00:03:00Z"), ZoneId.of("UTC")))
        .contains(Instant.parse("2026-01-01T00:13:00Z"));
    assertThat(every.nextAfter(Instant.parse("2026-01-01T00:02:59Z"), ZoneId.of("UTC")))
        .contains(Instant.parse("2026-01-01T00:03:00Z"));
  }

  @Test
  void aCronThatDoesNotParseIsRefusedAsInvalidInput() {
    assertThatThrownBy(() -> Calendar.cron("61 * * * *"))
        .isInstanceOf(FlowsException.class)
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.INVALID_INPUT);
  }

  @Test
  void aDefinitionReadsBackFromItsJson() {
    ScheduleDefinition d =
        ScheduleDefinition.of("nightly", "reconcile", Calendar.cron("0 3 * * *"))
            .withZone(BERLIN)
            .withOverlap(Overlap.BUFFER_ALL)
            .withJitter(Duration.ofSeconds(30))
            .withWindow(
                java.util.Optional.of(Instant.parse("2026-01-01T00:00:00Z")),
                java.util.Optional.empty());
    assertThat(ScheduleDefinition.fromJson(d.toJson())).isEqualTo(d);
  }

  @Test
  void jitterDelaysATickByTheSameAmountWherever() {
    ScheduleDefinition d =
        ScheduleDefinition.of("n", "f", Calendar.cron("0 3 * * *"))
            .withJitter(Duration.ofMinutes(5));
    Instant nominal = Instant.parse("2026-01-01T03:00:00Z");
    assertThat(d.dueAt(nominal)).isEqualTo(d.dueAt(nominal));
    assertThat(d.dueAt(nominal)).isBetween(nominal, nominal.plus(Duration.ofMinutes(5)));
  }
}
