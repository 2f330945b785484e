package dev.flows.kernel.schedule;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The rules of schedule changes, shared by every journal: what a {@link ScheduleChange} makes of a
 * schedule and which entries it journals. Pure: the journal reads the schedule, applies {@link
 * #change}, and writes the answer in one transaction.
 */
public final class Schedules {
  /** The most ticks one backfill may request. */
  public static final int MAX_BACKFILL_TICKS = 10_000;

  private Schedules() {}

  /**
   * The admission key of the run of tick {@code nominal} of schedule {@code name}: whichever worker
   * admits it, a second admission of the tick meets the first run.
   */
  public static String admissionKey(String name, Instant nominal) {
    return "schedule:" + name + ":" + nominal;
  }

  /** Who a schedule's runs are created by. */
  public static String createdBy(String name) {
    return "schedule:" + name;
  }

  /**
   * The run id of tick {@code nominal}: derived from its admission key, so every journal and worker
   * names the tick's run alike.
   */
  public static RunRef runId(String name, Instant nominal) {
    return new RunRef(
        "run_"
            + java.util
                .UUID
                .nameUUIDFromBytes(
                    admissionKey(name, nominal).getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .toString()
                .replace("-", ""));
  }

  /**
   * The run of tick {@code nominal}: {@code template} under the tick's run id, key, queue and
   * author.
   */
  public static StartRun tickRun(StartRun template, ScheduleState s, Instant nominal) {
    return new StartRun(
        Optional.of(runId(s.name(), nominal)),
        admissionKey(s.name(), nominal),
        template.spec(),
        Optional.empty(),
        createdBy(s.name()),
        Optional.empty(),
        s.definition().queue());
  }

  /** What a change made: the schedule after it (empty once deleted) and the entries it wrote. */
  public record Changed(Optional<ScheduleState> state, List<ScheduleEntry> entries) {
    public Changed {
      entries = List.copyOf(entries);
    }

    /** The schedule after the change; refused for a delete. */
    public ScheduleState schedule() {
      return state.orElseThrow();
    }
  }

  /**
   * Applies {@code c} at {@code now} to the schedule as it is ({@code current}). Refused, writing
   * nothing: {@code schedule_not_found} for a schedule that does not exist (but for a create),
   * {@code schedule_exists} for a create of a name held by another definition, {@code
   * invalid_input} for a backfill whose range is reversed or holds too many ticks, {@code
   * payload_too_large} for a definition whose input is past {@code limits}' run input limit.
   */
  public static Changed change(
      Optional<ScheduleState> current, ScheduleChange c, Instant now, PayloadLimits limits) {
    return switch (c) {
      case ScheduleChange.Create cr -> create(current, bounded(cr.definition(), limits), now);
      case ScheduleChange.Apply a ->
          current.isEmpty()
              ? create(current, bounded(a.definition(), limits), now)
              : update(current.get(), bounded(a.definition(), limits), now);
      case ScheduleChange.Update u ->
          update(found(current, c), bounded(u.definition(), limits), now);
      case ScheduleChange.Pause p -> pause(found(current, c), p.reason(), now);
      case ScheduleChange.Resume r -> resume(found(current, c), now);
      case ScheduleChange.Delete d -> {
        found(current, c);
        yield new Changed(Optional.empty(), List.of(new ScheduleEntry.Deleted()));
      }
      case ScheduleChange.Trigger t ->
          request(found(current, c), List.of(now), TickSource.TRIGGER, now);
      case ScheduleChange.Backfill b ->
          request(found(current, c), backfill(found(current, c), b), TickSource.BACKFILL, now);
    };
  }

  /** Every tick's run takes the schedule's input: it is held to the run input limit once, here. */
  private static ScheduleDefinition bounded(ScheduleDefinition d, PayloadLimits limits) {
    limits.requireScheduleInput(d.name(), d.input());
    return d;
  }

  private static ScheduleState found(Optional<ScheduleState> current, ScheduleChange c) {
    return current.orElseThrow(() -> notFound(c.name()));
  }

  public static NotFoundException notFound(String name) {
    return new NotFoundException(
        ErrorCode.SCHEDULE_NOT_FOUND, "no schedule named " + name, "schedule " + name);
  }

  private static Changed create(
      Optional<ScheduleState> current, ScheduleDefinition d, Instant now) {
    if (current.isPresent()) {
      if (current.get().definition().toJson().equals(d.toJson())) {
        return new Changed(current, List.of());
      }
      throw new FlowsException(
          ErrorCode.SCHEDULE_EXISTS,
          "a schedule named " + d.name() + " exists with another definition",
          "schedule " + d.name(),
          "update it (flows schedules update) or choose another name");
    }
    ScheduleState s =
        new ScheduleState(d, false, d.nextTickAfter(now), List.of(), Optional.empty(), now, now);
    return new Changed(Optional.of(s), List.of(new ScheduleEntry.Created(d.toJson())));
  }

  private static Changed update(ScheduleState s, ScheduleDefinition d, Instant now) {
    if (s.definition().toJson().equals(d.toJson())) {
      return new Changed(Optional.of(s), List.of());
    }
    ScheduleState next = s.with(d, s.paused(), d.nextTickAfter(now), s.pending(), s.lastRun(), now);
    return new Changed(Optional.of(next), List.of(new ScheduleEntry.Updated(d.toJson())));
  }

  private static Changed pause(ScheduleState s, String reason, Instant now) {
    if (s.paused()) {
      return new Changed(Optional.of(s), List.of());
    }
    ScheduleState next = s.with(s.definition(), true, s.nextTick(), s.pending(), s.lastRun(), now);
    return new Changed(Optional.of(next), List.of(new ScheduleEntry.Paused(reason)));
  }

  private static Changed resume(ScheduleState s, Instant now) {
    if (!s.paused()) {
      return new Changed(Optional.of(s), List.of());
    }
    ScheduleState next =
        s.with(
            s.definition(),
            false,
            s.definition().nextTickAfter(now),
            s.pending(),
            s.lastRun(),
            now);
    return new Changed(Optional.of(next), List.of(new ScheduleEntry.Resumed()));
  }

  private static List<Instant> backfill(ScheduleState s, ScheduleChange.Backfill b) {
    if (b.to().isBefore(b.from())) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "a backfill's --to " + b.to() + " comes before its --from " + b.from(),
          "schedule " + s.name(),
          "give --from before --to");
    }
    List<Instant> ticks = new ArrayList<>();
    Optional<Instant> t = s.definition().calendarTickAfter(b.from().minusNanos(1));
    while (t.isPresent() && !t.get().isAfter(b.to())) {
      if (ticks.size() == MAX_BACKFILL_TICKS) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "a backfill holds at most " + MAX_BACKFILL_TICKS + " ticks",
            "schedule " + s.name(),
            "backfill a shorter range at a time");
      }
      ticks.add(t.get());
      t = s.definition().calendarTickAfter(t.get());
    }
    return ticks;
  }

  private static Changed request(
      ScheduleState s, List<Instant> ticks, TickSource source, Instant now) {
    if (ticks.isEmpty()) {
      return new Changed(Optional.of(s), List.of());
    }
    List<PendingTick> pending = new ArrayList<>(s.pending());
    ticks.forEach(t -> pending.add(new PendingTick(t, source)));
    ScheduleState next =
        s.with(s.definition(), s.paused(), s.nextTick(), pending, s.lastRun(), now);
    return new Changed(
        Optional.of(next),
        List.of(
            new ScheduleEntry.TicksRequested(
                source, ticks.getFirst(), ticks.getLast(), ticks.size())));
  }
}
