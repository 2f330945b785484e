package dev.flows.kernel.journal;

import dev.flows.kernel.RunAdmissionConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import dev.flows.kernel.schedule.TickBatch;
import dev.flows.kernel.schedule.TickDecision;
import dev.flows.kernel.schedule.Ticking;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The in-memory journal's schedules, under the journal's one lock: the kernel's rules ({@link
 * Schedules#change}, {@link Ticking#plan}) applied to a map, ticks admitted as {@link
 * MemoryAdmission} admits any run.
 */
final class MemorySchedules {
  private final MemoryState state;
  private final MemoryAdmission admission;
  private final MemoryEnds ends;
  private final Map<String, ScheduleState> schedules = new TreeMap<>();
  private final List<ScheduleRecord> entries = new ArrayList<>();

  MemorySchedules(MemoryState state, MemoryAdmission admission, MemoryEnds ends) {
    this.state = state;
    this.admission = admission;
    this.ends = ends;
  }

  Schedules.Changed change(ScheduleChange c, Instant now) {
    Schedules.Changed changed =
        Schedules.change(Optional.ofNullable(schedules.get(c.name())), c, now, state.limits);
    changed
        .state()
        .ifPresentOrElse(s -> schedules.put(c.name(), s), () -> schedules.remove(c.name()));
    changed.entries().forEach(e -> append(c.name(), c.by(), e, now));
    return changed;
  }

  Optional<ScheduleState> schedule(String name) {
    return Optional.ofNullable(schedules.get(name));
  }

  List<ScheduleState> all() {
    return List.copyOf(schedules.values());
  }

  List<ScheduleRecord> entries(String name) {
    return entries.stream().filter(r -> r.schedule().equals(name)).toList();
  }

  List<ScheduleState> due(Set<String> flows, int limit, Instant now) {
    return schedules.values().stream()
        .filter(s -> flows.contains(s.definition().flow()))
        .filter(s -> Ticking.due(s, lastStatus(s), now))
        .sorted(
            Comparator.comparing((ScheduleState s) -> s.dueAt().orElse(Instant.MAX))
                .thenComparing(ScheduleState::name))
        .limit(limit)
        .toList();
  }

  /** A batch take: under the journal's one lock no other taker holds a schedule. */
  TickBatch takeDue(
      Set<String> flows,
      int limit,
      Function<ScheduleDefinition, Optional<StartRun>> templates,
      String by,
      Instant now) {
    List<ScheduleState> held = due(flows, limit, now);
    List<TickBatch.Taken> taken = new ArrayList<>();
    for (ScheduleState s : held) {
      Optional<StartRun> template = templates.apply(s.definition());
      if (template.isPresent()) {
        List<ScheduleEntry> written = take(s.name(), template.get(), by, now);
        if (!written.isEmpty()) {
          taken.add(new TickBatch.Taken(s.name(), written));
        }
      }
    }
    return new TickBatch(held.size(), taken);
  }

  List<ScheduleEntry> take(String name, StartRun template, String by, Instant now) {
    ScheduleState s = schedules.get(name);
    if (s == null) {
      return List.of();
    }
    Ticking.Plan plan = Ticking.plan(s, lastStatus(s), now);
    if (!plan.changes(s)) {
      return List.of();
    }
    List<ScheduleEntry> written = new ArrayList<>();
    if (plan.pauseReason().isPresent()) {
      written.add(new ScheduleEntry.Paused(plan.pauseReason().get()));
      schedules.put(
          name,
          new ScheduleState(
              s.definition(),
              true,
              s.nextTick(),
              s.pending(),
              Optional.empty(),
              s.createdAt(),
              now));
    } else {
      Optional<RunRef> last = s.lastRun();
      for (Ticking.Decided t : plan.ticks()) {
        last = decide(s, t, template, last, now, written);
      }
      schedules.put(
          name,
          new ScheduleState(
              s.definition(), false, plan.nextTick(), plan.pending(), last, s.createdAt(), now));
    }
    written.forEach(e -> append(name, by, e, now));
    return written;
  }

  /** Journals tick {@code t}, admitting its run when it starts; answers the schedule's last run. */
  private Optional<RunRef> decide(
      ScheduleState s,
      Ticking.Decided t,
      StartRun template,
      Optional<RunRef> last,
      Instant now,
      List<ScheduleEntry> written) {
    if (!t.decision().starts()) {
      written.add(new ScheduleEntry.TickNotStarted(t.nominal(), t.source(), t.decision()));
      return last;
    }
    Optional<RunRef> canceled = Optional.empty();
    if (t.decision() == TickDecision.CANCELED_OTHER && last.isPresent()) {
      ends.cancelRun(
          last.get(), "canceled by tick " + t.nominal() + " of schedule " + s.name(), now);
      canceled = last;
    }
    try {
      StartedRun started =
          admission.admit(Schedules.tickRun(template, s, t.nominal()), Admit.queued(), now);
      written.add(
          new ScheduleEntry.TickStarted(
              t.nominal(), t.source(), t.decision(), started.runId(), started.created(), canceled));
      return Optional.of(started.runId());
    } catch (RunAdmissionConflictException | RunTerminalException e) {
      // The tick's run id or key admitted another run (a changed flow) or was tombstoned.
      written.add(
          new ScheduleEntry.TickNotStarted(t.nominal(), t.source(), TickDecision.SKIPPED_CONFLICT));
      return last;
    }
  }

  private Optional<RunStatus> lastStatus(ScheduleState s) {
    return s.lastRun().map(state.runs::get).map(r -> r.status);
  }

  private void append(String name, String by, ScheduleEntry e, Instant now) {
    entries.add(new ScheduleRecord(entries.size() + 1L, now, name, by, e));
  }
}
