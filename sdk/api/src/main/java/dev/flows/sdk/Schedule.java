package dev.flows.sdk;

import dev.flows.kernel.schedule.Calendar;
import dev.flows.kernel.schedule.Exclusion;
import dev.flows.kernel.schedule.Overlap;
import dev.flows.kernel.schedule.ScheduleDefinition;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The schedule a flow header declares: {@code
 * FlowHeader.named("reconcile").schedule(Schedule.cron("0 3 * * *").zone("Europe/Berlin"))}. A
 * worker that starts with the flow applies it (creates the schedule named after the flow, or
 * updates it when it differs); its ticks start the flow with input {@code {}}. Immutable: each
 * setter answers a new schedule. Refused {@code invalid_input} like the definition it makes.
 */
public final class Schedule {
  private final Calendar calendar;
  private final ZoneId zone;
  private final Overlap overlap;
  private final Duration catchUpWindow;
  private final Duration jitter;
  private final boolean pauseOnFailure;
  private final List<Exclusion> exclude;

  private Schedule(
      Calendar calendar,
      ZoneId zone,
      Overlap overlap,
      Duration catchUpWindow,
      Duration jitter,
      boolean pauseOnFailure,
      List<Exclusion> exclude) {
    this.calendar = calendar;
    this.zone = zone;
    this.overlap = overlap;
    this.catchUpWindow = catchUpWindow;
    this.jitter = jitter;
    this.pauseOnFailure = pauseOnFailure;
    this.exclude = List.copyOf(exclude);
  }

  private static Schedule on(Calendar c) {
    return new Schedule(
        c,
        ZoneId.of("UTC"),
        Overlap.SKIP,
        ScheduleDefinition.DEFAULT_CATCH_UP_WINDOW,
        Duration.ZERO,
        false,
        List.of());
  }

  /** A cron expression: five fields, or six with seconds first; read in {@link #zone}. */
  public static Schedule cron(String expression) {
    return on(Calendar.cron(expression));
  }

  /** Every {@code interval} (at least 1 s), at whole intervals since the epoch. */
  public static Schedule every(Duration interval) {
    return on(Calendar.every(interval, Duration.ZERO));
  }

  /** Every {@code interval}, shifted by {@code offset} (below the interval). */
  public static Schedule every(Duration interval, Duration offset) {
    return on(Calendar.every(interval, offset));
  }

  /** The time zone a cron is read in (default UTC). */
  public Schedule zone(String zoneId) {
    return new Schedule(
        calendar, ZoneId.of(zoneId), overlap, catchUpWindow, jitter, pauseOnFailure, exclude);
  }

  /** What a tick does while the previous run goes on: skip (default), buffer-one, ... */
  public Schedule overlap(String policy) {
    return new Schedule(
        calendar, zone, Overlap.fromWire(policy), catchUpWindow, jitter, pauseOnFailure, exclude);
  }

  /** How late a tick may still start (default one minute). */
  public Schedule catchUpWindow(Duration window) {
    return new Schedule(calendar, zone, overlap, window, jitter, pauseOnFailure, exclude);
  }

  /** Each tick delayed by up to {@code max}. */
  public Schedule jitter(Duration max) {
    return new Schedule(calendar, zone, overlap, catchUpWindow, max, pauseOnFailure, exclude);
  }

  /** Whether a failed run pauses the schedule. */
  public Schedule pauseOnFailure(boolean pause) {
    return new Schedule(calendar, zone, overlap, catchUpWindow, jitter, pause, exclude);
  }

  /**
   * Times without a tick, on the wall clock of {@link #zone}: each a date ({@code 2026-12-25}), a
   * range of dates ({@code 2026-12-24..2026-12-26}, both included) or a cron expression ({@code "*
   * * * * SAT,SUN"}; five fields cover whole minutes, six single seconds). Replaces the ones given
   * before; none by default.
   */
  public Schedule exclude(String... calendars) {
    List<Exclusion> parsed = Arrays.stream(calendars).map(Exclusion::parse).toList();
    return new Schedule(calendar, zone, overlap, catchUpWindow, jitter, pauseOnFailure, parsed);
  }

  /** The cron expression, when this is a cron schedule. */
  public Optional<String> cron() {
    return calendar instanceof Calendar.CronCalendar c
        ? Optional.of(c.expression())
        : Optional.empty();
  }

  /** The interval, when this is an interval schedule. */
  public Optional<Duration> every() {
    return calendar instanceof Calendar.Every e ? Optional.of(e.interval()) : Optional.empty();
  }

  /** An interval schedule's offset (zero otherwise). */
  public Duration offset() {
    return calendar instanceof Calendar.Every e ? e.offset() : Duration.ZERO;
  }

  public String zone() {
    return zone.getId();
  }

  /** The overlap policy's wire name. */
  public String overlap() {
    return overlap.wire();
  }

  public Duration catchUpWindow() {
    return catchUpWindow;
  }

  public Duration jitter() {
    return jitter;
  }

  public boolean pauseOnFailure() {
    return pauseOnFailure;
  }

  /** The excluded calendars' wire forms, as given to {@link #exclude}. */
  public List<String> excluded() {
    return exclude.stream().map(Exclusion::wire).toList();
  }

  private ScheduleDefinition definition() {
    return ScheduleDefinition.of("flow", "flow", calendar)
        .withZone(zone)
        .withOverlap(overlap)
        .withCatchUpWindow(catchUpWindow)
        .withJitter(jitter)
        .withPauseOnFailure(pauseOnFailure)
        .withExclude(exclude);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Schedule other && other.toString().equals(toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return definition().toJson().toString();
  }
}
