package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleEntryJson;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code flows schedules create | list | show | pause | resume | update | delete | trigger |
 * backfill}: the journal's schedule verbs ({@link Journal#changeSchedule}), each change journaled
 * with the operator ({@link RunsCommand#operator}).
 */
@Command(
    name = "schedules",
    description = "Start flows on a calendar: create, inspect and control schedules.",
    mixinStandardHelpOptions = true,
    subcommands = {
      SchedulesCommand.Create.class,
      SchedulesCommand.ListSchedules.class,
      SchedulesCommand.Show.class,
      SchedulesCommand.Pause.class,
      SchedulesCommand.Resume.class,
      SchedulesCommand.Update.class,
      SchedulesCommand.Delete.class,
      SchedulesCommand.Trigger.class,
      SchedulesCommand.Backfill.class
    })
final class SchedulesCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw new FlowsException(
        ErrorCode.INVALID_INPUT,
        "a subcommand is required",
        "flows schedules",
        "use `flows schedules create`, `list`, `show`, `pause`, `resume`, `update`, `delete`,"
            + " `trigger` or `backfill`");
  }

  /** The schedule, or {@code schedule_not_found}. */
  static ScheduleState existing(Journal journal, String name) {
    return journal.schedule(name).orElseThrow(() -> Schedules.notFound(name));
  }

  /** A schedule as {@code --json} prints it. */
  static ObjectNode json(Journal journal, ScheduleState s) {
    ObjectNode o = Session.JSON.createObjectNode();
    o.put("name", s.name());
    o.set("definition", s.definition().toJson());
    o.put("paused", s.paused());
    o.put("nextTick", s.nextTick().map(Instant::toString).orElse(null));
    o.put("dueAt", s.dueAt().map(Instant::toString).orElse(null));
    ArrayNode pending = o.putArray("pending");
    pending.addAll((ArrayNode) ScheduleEntryJson.pending(s.pending()));
    o.put("lastRun", s.lastRun().map(r -> r.value()).orElse(null));
    o.put(
        "lastRunStatus",
        s.lastRun().flatMap(journal::run).map(r -> r.status().wire()).orElse(null));
    o.put("createdAt", s.createdAt().toString());
    o.put("updatedAt", s.updatedAt().toString());
    return o;
  }

  /** One line: name, flow, calendar, zone, state, next tick, last run. */
  static String line(ObjectNode j) {
    var d = j.get("definition");
    String calendar =
        d.hasNonNull("cron")
            ? "cron '" + d.get("cron").asText() + "'"
            : "every " + d.get("every").asText();
    return j.get("name").asText()
        + "  flow "
        + d.get("flow").asText()
        + "  "
        + calendar
        + " "
        + d.get("zone").asText()
        + "  "
        + (j.get("paused").asBoolean() ? "paused" : "active")
        + "  next "
        + j.path("nextTick").asText("-")
        + "  last run "
        + (j.hasNonNull("lastRun")
            ? j.get("lastRun").asText() + " " + j.path("lastRunStatus").asText("pruned")
            : "-");
  }

  /** Applies {@code c} and prints the schedule after it (or that it is gone). */
  static int change(Session s, ScheduleChange c, String done) {
    Journal journal = s.journal();
    Schedules.Changed changed = journal.changeSchedule(c);
    ObjectNode out = s.object();
    changed
        .state()
        .ifPresentOrElse(
            st -> out.set("schedule", json(journal, st)), () -> out.putNull("schedule"));
    out.put("changed", !changed.entries().isEmpty());
    s.emit(
        out,
        p ->
            p.println(
                "schedule "
                    + c.name()
                    + " "
                    + (changed.entries().isEmpty() ? "unchanged" : done)
                    + changed
                        .state()
                        .flatMap(ScheduleState::nextTick)
                        .map(t -> "; next tick " + t)
                        .orElse("")));
    return Exit.SUCCESS;
  }

  /** An instant, or a date (its start in UTC), given at {@code place}. */
  static Instant instant(String value, String place) {
    try {
      return value.length() == 10
          ? LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant()
          : Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          place + " \"" + value + "\" is not an instant or a date",
          place,
          "write e.g. 2026-03-01 or 2026-03-01T02:00:00Z");
    }
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description =
          "Create a schedule: FLOW started on --cron (5 fields, or 6 with seconds first) or --every"
              + " an interval. The same definition again changes nothing; another is refused"
              + " schedule_exists.")
  static final class Create implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "NAME", description = "The schedule's name.")
    String name;

    @Mixin ScheduleFlags flags = new ScheduleFlags();

    private final Session s;

    Create(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      return change(
          s, new ScheduleChange.Create(flags.definition(name), RunsCommand.operator()), "created");
    }
  }

  @Command(
      name = "update",
      mixinStandardHelpOptions = true,
      description =
          "Change a schedule: the options given replace its definition's; its next tick is counted"
              + " from now.")
  static final class Update implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "NAME", description = "The schedule's name.")
    String name;

    @Mixin ScheduleFlags flags = new ScheduleFlags();

    private final Session s;

    Update(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      ScheduleState now = existing(s.journal(), name);
      return change(
          s,
          new ScheduleChange.Update(flags.over(now.definition()), RunsCommand.operator()),
          "updated");
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Every schedule: its flow, calendar, state, next tick and last run.")
  static final class ListSchedules implements Callable<Integer> {
    private final Session s;

    ListSchedules(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      Journal journal = s.journal();
      ArrayNode all = Session.JSON.createArrayNode();
      journal.schedules().forEach(st -> all.add(json(journal, st)));
      ObjectNode out = s.object();
      out.set("schedules", all);
      s.emit(
          out,
          p -> {
            if (all.isEmpty()) {
              p.println("no schedules");
            }
            all.forEach(j -> p.println(line((ObjectNode) j)));
          });
      return Exit.SUCCESS;
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "A schedule and its journal: every change and every tick with its decision.")
  static final class Show implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "NAME", description = "The schedule's name.")
    String name;

    @Option(
        names = "--entries",
        paramLabel = "N",
        description = "How many of its latest entries to show (default 50).")
    int entries = 50;

    private final Session s;

    Show(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      Journal journal = s.journal();
      ScheduleState st = existing(journal, name);
      List<ScheduleRecord> all = journal.scheduleEntries(name);
      List<ScheduleRecord> latest =
          all.subList(Math.max(0, all.size() - Math.max(0, entries)), all.size());
      ObjectNode out = s.object();
      ObjectNode schedule = json(journal, st);
      out.set("schedule", schedule);
      ArrayNode es = out.putArray("entries");
      for (ScheduleRecord r : latest) {
        ObjectNode e = es.addObject();
        e.put("seq", r.seq()).put("at", r.at().toString()).put("type", r.entry().type());
        e.put("by", r.by());
        e.setAll(ScheduleEntryJson.payload(r.entry()));
      }
      s.emit(
          out,
          p -> {
            p.println(line(schedule));
            es.forEach(e -> p.println("  " + e.get("at").asText() + "  " + entryText(e)));
          });
      return Exit.SUCCESS;
    }
  }

  /** An entry's text: its type and what it says. */
  static String entryText(com.fasterxml.jackson.databind.JsonNode e) {
    String type = e.get("type").asText();
    if (e.has("nominal")) {
      return type.replace("schedule.", "")
          + " "
          + e.get("nominal").asText()
          + " ("
          + e.get("decision").asText()
          + (e.has("runId") ? ", run " + e.get("runId").asText() : "")
          + ")";
    }
    return type.replace("schedule.", "")
        + (e.has("reason") ? " (" + e.get("reason").asText() + ")" : "")
        + (e.has("count") ? " " + e.get("count").asInt() + " ticks" : "")
        + " by "
        + e.get("by").asText();
  }

  @Command(name = "pause", mixinStandardHelpOptions = true, description = "Pause a schedule.")
  static final class Pause implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "NAME", description = "The schedule's name.")
    String name;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why (journaled).")
    String reason = "paused by an operator";

    private final Session s;

    Pause(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      return change(s, new ScheduleChange.Pause(name, reason, RunsCommand.operator()), "paused");
    }
  }

  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description = "Resume a paused schedule; ticks that fell while it was paused are not taken.")
  static final class Resume implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "NAME", description = "The schedule's name.")
    String name;

    private final Session s;

    Resume(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      return change(s, new ScheduleChange.Resume(name, RunsCommand.operator()), "resumed");
    }
  }

  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description = "Delete a schedule; its journal stays, its runs go on.")
  static final class Delete implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "NAME", description = "The schedule's name.")
    String name;

    private final Session s;

    Delete(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      return change(s, new ScheduleChange.Delete(name, RunsCommand.operator()), "deleted");
    }
  }

  @Command(
      name = "trigger",
      mixinStandardHelpOptions = true,
      description =
          "A tick now, outside the calendar: a worker with the flow starts it once no run of the"
              + " schedule goes on.")
  static final class Trigger implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "NAME", description = "The schedule's name.")
    String name;

    private final Session s;

    Trigger(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      return change(s, new ScheduleChange.Trigger(name, RunsCommand.operator()), "triggered");
    }
  }

  @Command(
      name = "backfill",
      mixinStandardHelpOptions = true,
      description =
          "The calendar's ticks from --from to --to (inclusive), each started in turn under its own"
              + " key (a tick that ran already is not started again).")
  static final class Backfill implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "NAME", description = "The schedule's name.")
    String name;

    @Option(
        names = "--from",
        required = true,
        paramLabel = "INSTANT",
        description = "An instant or a date.")
    String from;

    @Option(
        names = "--to",
        required = true,
        paramLabel = "INSTANT",
        description = "An instant or a date.")
    String to;

    private final Session s;

    Backfill(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      return change(
          s,
          new ScheduleChange.Backfill(
              name, instant(from, "--from"), instant(to, "--to"), RunsCommand.operator()),
          "backfilled");
    }
  }
}
