package dev.flows.kernel.schedule;

import com.cronutils.model.time.ExecutionTime;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Optional;

/**
 * When a schedule ticks: a cron expression read in the schedule's time zone, or a fixed interval
 * with an offset. Each answers the first nominal tick strictly after an instant.
 */
public sealed interface Calendar permits Calendar.CronCalendar, Calendar.Every {

  /** The first nominal tick strictly after {@code t}; empty when the calendar has none. */
  Optional<Instant> nextAfter(Instant t, ZoneId zone);

  /** The wire form: the cron expression, or {@code every PT1S offset PT0S}. */
  String wire();

  /**
   * A cron expression: five fields (minute hour day-of-month month day-of-week, as Unix cron) or
   * six with seconds first (as Spring's). Refused {@code invalid_input} when cron-utils cannot
   * parse it.
   */
  static CronCalendar cron(String expression) {
    return new CronCalendar(expression);
  }

  /** Every {@code interval}, at the epoch plus {@code offset} plus whole intervals. */
  static Every every(Duration interval, Duration offset) {
    return new Every(interval, offset);
  }

  /**
   * A cron calendar. Ticks follow the wall clock of the zone: a wall-clock time that does not exist
   * (the hour skipped when clocks go forward) ticks at that time shifted forward by the gap; one
   * that occurs twice (clocks go back) ticks once, at its first occurrence. A daily 02:30 thus runs
   * once on every day.
   */
  record CronCalendar(String expression) implements Calendar {
    public CronCalendar {
      expression = expression.trim();
      parse(expression);
    }

    private static ExecutionTime parse(String expression) {
      try {
        return CronExpressions.times(expression);
      } catch (IllegalArgumentException e) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "cron expression '" + expression + "' does not parse: " + e.getMessage(),
            "schedule cron",
            "give five fields (minute hour day month weekday) or six with seconds first");
      }
    }

    @Override
    public Optional<Instant> nextAfter(Instant t, ZoneId zone) {
      ExecutionTime times = parse(expression);
      // The cron is matched against wall-clock times (a UTC stand-in keeps them free of gaps), each
      // then placed in the zone; a placement not after t (a gap's shifted time met again) is
      // passed.
      LocalDateTime local = LocalDateTime.ofInstant(t, zone);
      ZonedDateTime cursor = local.atZone(ZoneOffset.UTC);
      for (int guard = 0; guard < MAX_PASSES; guard++) {
        Optional<ZonedDateTime> next = times.nextExecution(cursor);
        if (next.isEmpty()) {
          return Optional.empty();
        }
        cursor = next.get();
        Instant placed = ZonedDateTime.ofLocal(cursor.toLocalDateTime(), zone, null).toInstant();
        if (placed.isAfter(t)) {
          return Optional.of(placed);
        }
      }
      return Optional.empty();
    }

    /** More wall-clock times than a gap (at most a day) can hold at one per second. */
    private static final int MAX_PASSES = 90_000;

    @Override
    public String wire() {
      return expression;
    }
  }

  /** A fixed interval; the zone plays no part. */
  record Every(Duration interval, Duration offset) implements Calendar {
    public Every {
      if (interval.isNegative() || interval.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "a schedule interval is at least 1 second, not " + interval,
            "schedule interval",
            "give an interval of 1s or more");
      }
      if (offset.isNegative() || offset.compareTo(interval) >= 0) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "a schedule offset is at least 0 and less than its interval, not " + offset,
            "schedule offset",
            "give an offset below the interval");
      }
    }

    @Override
    public Optional<Instant> nextAfter(Instant t, ZoneId zone) {
      long step = interval.toMillis();
      long since = t.toEpochMilli() - offset.toMillis();
      long k = Math.floorDiv(since, step) + 1;
      return Optional.of(Instant.ofEpochMilli(k * step + offset.toMillis()));
    }

    @Override
    public String wire() {
      return "every " + interval + " offset " + offset;
    }
  }
}
