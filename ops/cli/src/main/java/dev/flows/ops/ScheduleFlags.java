package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.schedule.Calendar;
import dev.flows.kernel.schedule.Exclusion;
import dev.flows.kernel.schedule.Overlap;
import dev.flows.kernel.schedule.ScheduleDefinition;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The options of {@code flows schedules create} and {@code update}: on create, a schedule's whole
 * definition ({@code --flow} and {@code --cron} or {@code --every} required); on update, what
 * replaces the existing definition's.
 */
final class ScheduleFlags {
  @Option(names = "--flow", paramLabel = "FLOW", description = "The flow's header name.")
  String flow;

  @Option(
      names = "--cron",
      paramLabel = "EXPR",
      description = "A cron expression: 5 fields, or 6 with seconds first, e.g. '0 3 * * *'.")
  String cron;

  @Option(names = "--every", paramLabel = "DURATION", description = "An interval, e.g. 10m.")
  String every;

  @Option(
      names = "--offset",
      paramLabel = "DURATION",
      description = "With --every: ticks shifted by this from whole intervals (default 0s).")
  String offset;

  @Option(names = "--zone", paramLabel = "ZONE", description = "Time zone of --cron (UTC).")
  String zone;

  @Option(names = "--input", paramLabel = "JSON", description = "The runs' input ({}).")
  String input;

  @Option(
      names = "--overlap",
      paramLabel = "POLICY",
      description = "skip (default), buffer-one, buffer-all, cancel-other or allow-all.")
  String overlap;

  @Option(
      names = "--catch-up-window",
      paramLabel = "DURATION",
      description = "How late a tick may still start (default 1m).")
  String catchUpWindow;

  @Option(names = "--jitter", paramLabel = "DURATION", description = "Delay ticks up to this.")
  String jitter;

  @Option(
      names = "--pause-on-failure",
      negatable = true,
      description = "Pause the schedule when a run fails.")
  Boolean pauseOnFailure;

  @Option(names = "--queue", paramLabel = "QUEUE", description = "The runs' queue (default).")
  String queue;

  @Option(names = "--flow-version", paramLabel = "V", description = "Only this flow version.")
  String version;

  @Option(names = "--start", paramLabel = "INSTANT", description = "No tick before (instant/date).")
  String start;

  @Option(names = "--end", paramLabel = "INSTANT", description = "No tick after (instant/date).")
  String end;

  @Option(
      names = "--exclude",
      paramLabel = "CALENDAR",
      description =
          "No tick then, on the zone's wall clock: a date 2026-12-25, a range"
              + " 2026-12-24..2026-12-26 or a cron ('* * * * SAT,SUN'). Repeatable; on update the"
              + " given ones replace the schedule's.")
  List<String> exclude;

  @Option(names = "--clear-exclude", description = "On update: drop the excluded calendars.")
  boolean clearExclude;

  /** A new schedule {@code name} from these options. */
  ScheduleDefinition definition(String name) {
    if (flow == null) {
      throw missing("--flow", "name the flow the schedule starts: --flow nightly-sync");
    }
    if (cron == null && every == null) {
      throw missing("--cron", "give --cron '0 3 * * *' or --every 10m");
    }
    return over(ScheduleDefinition.of(name, flow, calendar(Optional.empty())));
  }

  /** {@code d} with what these options give instead. */
  ScheduleDefinition over(ScheduleDefinition d) {
    ScheduleDefinition out =
        new ScheduleDefinition(
            d.name(),
            flow == null ? d.flow() : flow,
            version == null ? d.version() : Optional.of(version),
            input == null ? d.input() : EngineSupport.json(input, "--input", "'{\"day\":1}'"),
            calendar(Optional.of(d.calendar())),
            zone == null ? d.zone() : zone(zone),
            start == null ? d.start() : Optional.of(SchedulesCommand.instant(start, "--start")),
            end == null ? d.end() : Optional.of(SchedulesCommand.instant(end, "--end")),
            exclusions(d.exclude()),
            jitter == null ? d.jitter() : OptionValues.scheduleDuration(jitter, "--jitter"),
            overlap == null ? d.overlap() : Overlap.fromWire(overlap),
            catchUpWindow == null
                ? d.catchUpWindow()
                : OptionValues.scheduleDuration(catchUpWindow, "--catch-up-window"),
            pauseOnFailure == null ? d.pauseOnFailure() : pauseOnFailure,
            queue == null ? d.queue() : queue);
    return out;
  }

  private List<Exclusion> exclusions(List<Exclusion> before) {
    if (exclude != null) {
      return exclude.stream().map(Exclusion::parse).toList();
    }
    return clearExclude ? List.of() : before;
  }

  private Calendar calendar(Optional<Calendar> before) {
    if (cron != null && every != null) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "--cron and --every are two calendars",
          "--cron",
          "give one of --cron and --every");
    }
    if (cron != null) {
      return Calendar.cron(cron);
    }
    if (every != null || offset != null) {
      Optional<Calendar.Every> was =
          before.filter(Calendar.Every.class::isInstance).map(Calendar.Every.class::cast);
      Duration interval =
          every == null
              ? was.map(Calendar.Every::interval)
                  .orElseThrow(() -> missing("--every", "give --every with --offset"))
              : OptionValues.scheduleDuration(every, "--every");
      Duration shift =
          offset == null ? Duration.ZERO : OptionValues.scheduleDuration(offset, "--offset");
      return Calendar.every(interval, shift);
    }
    return before.orElseThrow();
  }

  private static ZoneId zone(String id) {
    try {
      return ZoneId.of(id);
    } catch (java.time.DateTimeException e) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "--zone \"" + id + "\" is not a time zone",
          "--zone",
          "give a zone id such as Europe/Berlin or UTC");
    }
  }

  private static FlowsException missing(String option, String fix) {
    return new FlowsException(ErrorCode.INVALID_INPUT, option + " is required", option, fix);
  }
}
