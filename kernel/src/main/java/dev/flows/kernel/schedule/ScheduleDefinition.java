package dev.flows.kernel.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Queues;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A schedule: which flow it starts (by name, at {@code version} when one is given, else whichever
 * version the worker that takes the tick has), with which input, on which {@link Calendar} read in
 * {@code zone}, between {@code start} and {@code end}; each tick delayed by up to {@code jitter}
 * (the same delay on every worker: a hash of the name and the tick), its {@link Overlap} policy,
 * how late a tick may still start ({@code catchUpWindow}), whether a failed run pauses it, and the
 * queue of its runs.
 */
public record ScheduleDefinition(
    String name,
    String flow,
    Optional<String> version,
    JsonNode input,
    Calendar calendar,
    ZoneId zone,
    Optional<Instant> start,
    Optional<Instant> end,
    List<Exclusion> exclude,
    Duration jitter,
    Overlap overlap,
    Duration catchUpWindow,
    boolean pauseOnFailure,
    String queue) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}");

  /** A tick seen due this much after it may still start, unless the schedule says otherwise. */
  public static final Duration DEFAULT_CATCH_UP_WINDOW = Duration.ofMinutes(1);

  public ScheduleDefinition {
    if (!NAME.matcher(name).matches()) {
      throw invalid("schedule name must match " + NAME.pattern() + ": " + name, "name");
    }
    if (flow.isBlank()) {
      throw invalid("a schedule names its flow", "flow");
    }
    Queues.require(queue);
    exclude = List.copyOf(exclude);
    if (jitter.isNegative() || catchUpWindow.isNegative()) {
      throw invalid("jitter and catch-up window are not negative", "jitter");
    }
    if (start.isPresent() && end.isPresent() && !end.get().isAfter(start.get())) {
      throw invalid("a schedule's end comes after its start", "end");
    }
  }

  /** Flow {@code flow} every tick of {@code calendar} in UTC, with the defaults. */
  public static ScheduleDefinition of(String name, String flow, Calendar calendar) {
    return new ScheduleDefinition(
        name,
        flow,
        Optional.empty(),
        JsonNodeFactory.instance.objectNode(),
        calendar,
        ZoneId.of("UTC"),
        Optional.empty(),
        Optional.empty(),
        List.of(),
        Duration.ZERO,
        Overlap.SKIP,
        DEFAULT_CATCH_UP_WINDOW,
        false,
        Queues.DEFAULT);
  }

  public ScheduleDefinition withInput(JsonNode in) {
    return new ScheduleDefinition(
        name,
        flow,
        version,
        in,
        calendar,
        zone,
        start,
        end,
        exclude,
        jitter,
        overlap,
        catchUpWindow,
        pauseOnFailure,
        queue);
  }

  public ScheduleDefinition withZone(ZoneId z) {
    return new ScheduleDefinition(
        name,
        flow,
        version,
        input,
        calendar,
        z,
        start,
        end,
        exclude,
        jitter,
        overlap,
        catchUpWindow,
        pauseOnFailure,
        queue);
  }

  public ScheduleDefinition withOverlap(Overlap o) {
    return new ScheduleDefinition(
        name,
        flow,
        version,
        input,
        calendar,
        zone,
        start,
        end,
        exclude,
        jitter,
        o,
        catchUpWindow,
        pauseOnFailure,
        queue);
  }

  public ScheduleDefinition withCatchUpWindow(Duration w) {
    return new ScheduleDefinition(
        name,
        flow,
        version,
        input,
        calendar,
        zone,
        start,
        end,
        exclude,
        jitter,
        overlap,
        w,
        pauseOnFailure,
        queue);
  }

  public ScheduleDefinition withPauseOnFailure(boolean p) {
    return new ScheduleDefinition(
        name,
        flow,
        version,
        input,
        calendar,
        zone,
        start,
        end,
        exclude,
        jitter,
        overlap,
        catchUpWindow,
        p,
        queue);
  }

  public ScheduleDefinition withJitter(Duration j) {
    return new ScheduleDefinition(
        name,
        flow,
        version,
        input,
        calendar,
        zone,
        start,
        end,
        exclude,
        j,
        overlap,
        catchUpWindow,
        pauseOnFailure,
        queue);
  }

  public ScheduleDefinition withWindow(Optional<Instant> from, Optional<Instant> until) {
    return new ScheduleDefinition(
        name,
        flow,
        version,
        input,
        calendar,
        zone,
        from,
        until,
        exclude,
        jitter,
        overlap,
        catchUpWindow,
        pauseOnFailure,
        queue);
  }

  public ScheduleDefinition withQueue(String q) {
    return new ScheduleDefinition(
        name,
        flow,
        version,
        input,
        calendar,
        zone,
        start,
        end,
        exclude,
        jitter,
        overlap,
        catchUpWindow,
        pauseOnFailure,
        q);
  }

  public ScheduleDefinition withVersion(Optional<String> v) {
    return new ScheduleDefinition(
        name,
        flow,
        v,
        input,
        calendar,
        zone,
        start,
        end,
        exclude,
        jitter,
        overlap,
        catchUpWindow,
        pauseOnFailure,
        queue);
  }

  public ScheduleDefinition withExclude(List<Exclusion> excluded) {
    return new ScheduleDefinition(
        name,
        flow,
        version,
        input,
        calendar,
        zone,
        start,
        end,
        excluded,
        jitter,
        overlap,
        catchUpWindow,
        pauseOnFailure,
        queue);
  }

  /** The first nominal tick strictly after {@code t}, within start and end; empty past the end. */
  public Optional<Instant> nextTickAfter(Instant t) {
    Instant from = start.filter(s -> s.isAfter(t)).map(s -> s.minusNanos(1)).orElse(t);
    return calendarTickAfter(from).filter(n -> end.isEmpty() || !n.isAfter(end.get()));
  }

  /**
   * The calendar's first tick strictly after {@code t} that no {@link Exclusion} covers; empty when
   * the calendar has none or the search passes {@link #MAX_EXCLUDED_IN_A_ROW} excluded spans in a
   * row.
   */
  public Optional<Instant> calendarTickAfter(Instant t) {
    Optional<Instant> next = calendar.nextAfter(t, zone);
    for (int passed = 0; next.isPresent() && passed < MAX_EXCLUDED_IN_A_ROW; passed++) {
      Instant tick = next.get();
      Optional<Instant> spanEnd =
          exclude.stream()
              .filter(x -> x.covers(tick, zone))
              .map(x -> x.coveredUntil(tick, zone))
              .max(Instant::compareTo);
      if (spanEnd.isEmpty()) {
        return next;
      }
      next = calendar.nextAfter(spanEnd.get(), zone);
    }
    return Optional.empty();
  }

  /**
   * How many excluded spans in a row (a covered tick's date range, or its minute for a five-field
   * cron, or the tick alone for a six-field one) the search for a tick passes: a schedule whose
   * exclusions cover more in a row has no next tick.
   */
  public static final int MAX_EXCLUDED_IN_A_ROW = 10_000;

  /** When the tick at {@code nominal} is due: delayed by its share of the jitter. */
  public Instant dueAt(Instant nominal) {
    if (jitter.isZero()) {
      return nominal;
    }
    long h = (name + "@" + nominal).hashCode() & 0x7fffffffL;
    return nominal.plusMillis(h % Math.max(1, jitter.toMillis()));
  }

  /** The canonical JSON form, as journaled and stored. */
  public JsonNode toJson() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("name", name).put("flow", flow);
    version.ifPresent(v -> o.put("version", v));
    o.set("input", input);
    switch (calendar) {
      case Calendar.CronCalendar c -> o.put("cron", c.expression());
      case Calendar.Every e ->
          o.put("every", e.interval().toString()).put("offset", e.offset().toString());
    }
    o.put("zone", zone.getId());
    start.ifPresent(s -> o.put("start", s.toString()));
    end.ifPresent(s -> o.put("end", s.toString()));
    if (!exclude.isEmpty()) {
      ArrayNode excluded = o.putArray("exclude");
      exclude.forEach(x -> excluded.add(x.wire()));
    }
    o.put("jitter", jitter.toString())
        .put("overlap", overlap.wire())
        .put("catchUpWindow", catchUpWindow.toString())
        .put("pauseOnFailure", pauseOnFailure)
        .put("queue", queue);
    return o;
  }

  /** Reads {@link #toJson}'s form; refused {@code invalid_input} when it is not one. */
  public static ScheduleDefinition fromJson(JsonNode o) {
    try {
      Calendar cal =
          o.hasNonNull("cron")
              ? Calendar.cron(o.get("cron").asText())
              : Calendar.every(
                  Duration.parse(o.get("every").asText()),
                  Duration.parse(o.path("offset").asText("PT0S")));
      return new ScheduleDefinition(
          o.get("name").asText(),
          o.get("flow").asText(),
          text(o, "version"),
          o.hasNonNull("input") ? o.get("input") : JsonNodeFactory.instance.objectNode(),
          cal,
          ZoneId.of(o.path("zone").asText("UTC")),
          text(o, "start").map(Instant::parse),
          text(o, "end").map(Instant::parse),
          exclusions(o.path("exclude")),
          Duration.parse(o.path("jitter").asText("PT0S")),
          Overlap.fromWire(o.path("overlap").asText("skip")),
          text(o, "catchUpWindow").map(Duration::parse).orElse(DEFAULT_CATCH_UP_WINDOW),
          o.path("pauseOnFailure").asBoolean(false),
          o.path("queue").asText(Queues.DEFAULT));
    } catch (FlowsException e) {
      throw e;
    } catch (RuntimeException e) {
      throw invalid("not a schedule definition: " + e.getMessage(), "definition");
    }
  }

  private static List<Exclusion> exclusions(JsonNode list) {
    if (list.isMissingNode() || list.isNull()) {
      return List.of();
    }
    if (!list.isArray()) {
      throw invalid("exclude is a list of excluded calendars", "exclude");
    }
    List<Exclusion> out = new java.util.ArrayList<>();
    list.forEach(x -> out.add(Exclusion.parse(x.asText())));
    return out;
  }

  private static Optional<String> text(JsonNode o, String field) {
    return o.hasNonNull(field) ? Optional.of(o.get(field).asText()) : Optional.empty();
  }

  private static FlowsException invalid(String message, String field) {
    return new FlowsException(
        ErrorCode.INVALID_INPUT, message, "schedule " + field, "fix the schedule's " + field);
  }
}
