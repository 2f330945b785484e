package dev.flows.embed;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.Queues;
import dev.flows.kernel.schedule.Calendar;
import dev.flows.kernel.schedule.Exclusion;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import dev.flows.sdk.Schedule;
import dev.flows.sdk.runtime.PublicError;
import dev.flows.sdk.runtime.ScheduleTemplates;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The schedules in the journal ({@link Flows#schedules()}): {@code
 * flows.schedules().create("nightly", "reconcile", Schedule.cron("0 3 * *
 * *").zone("Europe/Berlin"), input)}. Each change is journaled with its author {@code embed};
 * refusals are {@link dev.flows.kernel.FlowsException}s ({@code schedule_not_found}, {@code
 * schedule_exists}, {@code invalid_input}). Ticks are started by workers with the flow (an embedded
 * worker included).
 */
public final class FlowSchedules {
  private static final String BY = "embed";

  private final Journal journal;
  private final Function<Object, JsonNode> json;

  FlowSchedules(Journal journal, Function<Object, JsonNode> json) {
    this.journal = journal;
    this.json = json;
  }

  /**
   * Creates schedule {@code name} starting flow {@code flow} (its header name) with {@code input}
   * (a JsonNode or anything Jackson turns into one) in the default queue; the same again changes
   * nothing, another definition under the name is refused {@code schedule_exists}.
   */
  public ScheduleInfo create(String name, String flow, Schedule schedule, Object input) {
    return create(name, flow, schedule, input, Queues.DEFAULT);
  }

  /** As {@link #create(String, String, Schedule, Object)}, its runs going to {@code queue}. */
  public ScheduleInfo create(
      String name, String flow, Schedule schedule, Object input, String queue) {
    ScheduleDefinition d = definition(name, flow, schedule, input, queue);
    return PublicError.guard(
        () -> info(journal.changeSchedule(new ScheduleChange.Create(d, BY)).schedule()));
  }

  /** Replaces schedule {@code name}'s calendar and policies by {@code schedule}'s. */
  public ScheduleInfo update(String name, Schedule schedule) {
    ScheduleDefinition now = state(name).definition();
    ScheduleDefinition d =
        definition(name, now.flow(), schedule, now.input(), now.queue()).withVersion(now.version());
    return PublicError.guard(
        () -> info(journal.changeSchedule(new ScheduleChange.Update(d, BY)).schedule()));
  }

  public Optional<ScheduleInfo> get(String name) {
    return PublicError.guard(() -> journal.schedule(name).map(FlowSchedules::info));
  }

  /** Every schedule, by name. */
  public List<ScheduleInfo> list() {
    return PublicError.guard(() -> journal.schedules().stream().map(FlowSchedules::info).toList());
  }

  public ScheduleInfo pause(String name, String reason) {
    return PublicError.guard(
        () -> info(journal.changeSchedule(new ScheduleChange.Pause(name, reason, BY)).schedule()));
  }

  public ScheduleInfo resume(String name) {
    return PublicError.guard(
        () -> info(journal.changeSchedule(new ScheduleChange.Resume(name, BY)).schedule()));
  }

  /** Deletes it; its journal stays, its runs go on. */
  public void delete(String name) {
    PublicError.guard(() -> journal.changeSchedule(new ScheduleChange.Delete(name, BY)));
  }

  /** A tick now, started once no run of the schedule goes on. */
  public ScheduleInfo trigger(String name) {
    return PublicError.guard(
        () -> info(journal.changeSchedule(new ScheduleChange.Trigger(name, BY)).schedule()));
  }

  /** The calendar's ticks from {@code from} to {@code to}, each started in turn. */
  public ScheduleInfo backfill(String name, Instant from, Instant to) {
    return PublicError.guard(
        () ->
            info(
                journal
                    .changeSchedule(new ScheduleChange.Backfill(name, from, to, BY))
                    .schedule()));
  }

  private ScheduleState state(String name) {
    return journal.schedule(name).orElseThrow(() -> Schedules.notFound(name));
  }

  private ScheduleDefinition definition(
      String name, String flow, Schedule schedule, Object input, String queue) {
    ScheduleDefinition d = ScheduleTemplates.definition(schedule, flow, queue);
    return new ScheduleDefinition(
        name,
        flow,
        d.version(),
        json.apply(input),
        d.calendar(),
        d.zone(),
        d.start(),
        d.end(),
        d.exclude(),
        d.jitter(),
        d.overlap(),
        d.catchUpWindow(),
        d.pauseOnFailure(),
        queue);
  }

  private static ScheduleInfo info(ScheduleState s) {
    ScheduleDefinition d = s.definition();
    Schedule schedule =
        switch (d.calendar()) {
          case Calendar.CronCalendar c -> Schedule.cron(c.expression());
          case Calendar.Every e -> Schedule.every(e.interval(), e.offset());
        };
    schedule =
        schedule
            .zone(d.zone().getId())
            .overlap(d.overlap().wire())
            .catchUpWindow(d.catchUpWindow())
            .jitter(d.jitter())
            .pauseOnFailure(d.pauseOnFailure())
            .exclude(d.exclude().stream().map(Exclusion::wire).toArray(String[]::new));
    return new ScheduleInfo(
        s.name(),
        d.flow(),
        schedule,
        d.input(),
        d.queue(),
        s.paused(),
        s.nextTick(),
        s.pending().size(),
        s.lastRun().map(Boundary::id));
  }
}
