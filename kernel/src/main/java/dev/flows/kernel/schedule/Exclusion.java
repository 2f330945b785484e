package dev.flows.kernel.schedule;

import com.cronutils.model.time.ExecutionTime;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An excluded calendar: times at which a schedule does not tick, read on the wall clock of the
 * schedule's zone. A tick it covers is not a tick at all (not taken, not journaled, not
 * backfilled), as Temporal's excluded calendars produce no action. Its wire form is one string:
 * {@code 2026-12-24} or {@code 2026-12-24..2026-12-26} (whole days, both ends included), or a cron
 * expression (five fields matched to the minute, six with seconds first matched to the second).
 */
public sealed interface Exclusion permits Exclusion.Days, Exclusion.CronTimes {

  /** Whether the tick at {@code tick} is excluded in {@code zone}. */
  boolean covers(Instant tick, ZoneId zone);

  /**
   * The last instant of the excluded span that holds {@code tick} (a covered tick's day range, or
   * minute for a five-field cron), so a search for the next tick passes a span at once.
   */
  Instant coveredUntil(Instant tick, ZoneId zone);

  /** The wire form, as {@link #parse} reads it. */
  String wire();

  /**
   * Reads a wire form; refused {@code invalid_input} when it is neither a date range nor a cron.
   */
  static Exclusion parse(String text) {
    String s = text.trim();
    Matcher m = Days.FORM.matcher(s);
    if (m.matches()) {
      try {
        LocalDate from = LocalDate.parse(m.group(1));
        LocalDate to = m.group(2) == null ? from : LocalDate.parse(m.group(2));
        return new Days(from, to);
      } catch (DateTimeException e) {
        throw refused(s, e.getMessage());
      }
    }
    return new CronTimes(s);
  }

  private static FlowsException refused(String text, String why) {
    return new FlowsException(
        ErrorCode.INVALID_INPUT,
        "excluded calendar '" + text + "' is not one: " + why,
        "schedule exclude",
        "give a date (2026-12-25), a date range (2026-12-24..2026-12-26) or a cron expression");
  }

  /** Whole local days from {@code from} to {@code to}, both included. */
  record Days(LocalDate from, LocalDate to) implements Exclusion {
    private static final Pattern FORM =
        Pattern.compile("(\\d{4}-\\d{2}-\\d{2})(?:\\.\\.(\\d{4}-\\d{2}-\\d{2}))?");

    public Days {
      if (to.isBefore(from)) {
        throw refused(from + ".." + to, "its end comes before its start");
      }
    }

    @Override
    public boolean covers(Instant tick, ZoneId zone) {
      LocalDate day = LocalDate.ofInstant(tick, zone);
      return !day.isBefore(from) && !day.isAfter(to);
    }

    @Override
    public Instant coveredUntil(Instant tick, ZoneId zone) {
      return to.plusDays(1).atStartOfDay(zone).toInstant().minusNanos(1);
    }

    @Override
    public String wire() {
      return from.equals(to) ? from.toString() : from + ".." + to;
    }
  }

  /**
   * The wall-clock times a cron expression matches: five fields cover whole minutes (every second
   * of {@code * 2 * * *}'s 2 o'clock hour), six fields single seconds.
   */
  record CronTimes(String expression) implements Exclusion {
    public CronTimes {
      expression = expression.trim();
      times(expression);
    }

    private static ExecutionTime times(String expression) {
      try {
        return CronExpressions.times(expression);
      } catch (IllegalArgumentException e) {
        throw refused(expression, e.getMessage());
      }
    }

    private static boolean withSeconds(String expression) {
      return CronExpressions.withSeconds(expression);
    }

    @Override
    public boolean covers(Instant tick, ZoneId zone) {
      // Matched on the wall clock (a UTC stand-in, as the cron calendar does): both occurrences of
      // a wall-clock time that occurs twice are covered.
      LocalDateTime wall = LocalDateTime.ofInstant(tick, zone);
      wall = wall.truncatedTo(withSeconds(expression) ? ChronoUnit.SECONDS : ChronoUnit.MINUTES);
      // One step from just before the time is half of isMatch's work (it steps back, then on).
      ZonedDateTime at = wall.atZone(ZoneOffset.UTC);
      return times(expression).nextExecution(at.minusSeconds(1)).filter(at::isEqual).isPresent();
    }

    @Override
    public Instant coveredUntil(Instant tick, ZoneId zone) {
      if (withSeconds(expression)) {
        return tick;
      }
      LocalDateTime nextMinute =
          LocalDateTime.ofInstant(tick, zone).truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
      Instant end = ZonedDateTime.ofLocal(nextMinute, zone, null).toInstant().minusNanos(1);
      return end.isAfter(tick) ? end : tick;
    }

    @Override
    public String wire() {
      return expression;
    }
  }
}
