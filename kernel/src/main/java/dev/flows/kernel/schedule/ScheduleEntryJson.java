package dev.flows.kernel.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.RunRef;
import java.time.Instant;
import java.util.Optional;

/** A schedule entry's stored payload (its type is stored beside it), and back. */
public final class ScheduleEntryJson {
  private ScheduleEntryJson() {}

  public static ObjectNode payload(ScheduleEntry e) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    switch (e) {
      case ScheduleEntry.Created c -> o.set("definition", c.definition());
      case ScheduleEntry.Updated u -> o.set("definition", u.definition());
      case ScheduleEntry.Paused p -> o.put("reason", p.reason());
      case ScheduleEntry.Resumed r -> {}
      case ScheduleEntry.Deleted d -> {}
      case ScheduleEntry.TicksRequested t ->
          o.put("source", t.source().wire())
              .put("from", t.from().toString())
              .put("to", t.to().toString())
              .put("count", t.count());
      case ScheduleEntry.TickStarted t -> {
        o.put("nominal", t.nominal().toString())
            .put("source", t.source().wire())
            .put("decision", t.decision().wire())
            .put("runId", t.runId().value())
            .put("created", t.created());
        t.canceled().ifPresent(c -> o.put("canceled", c.value()));
      }
      case ScheduleEntry.TickNotStarted t ->
          o.put("nominal", t.nominal().toString())
              .put("source", t.source().wire())
              .put("decision", t.decision().wire());
    }
    return o;
  }

  public static ScheduleEntry read(String type, JsonNode o) {
    return switch (type) {
      case "schedule.created" -> new ScheduleEntry.Created(o.get("definition"));
      case "schedule.updated" -> new ScheduleEntry.Updated(o.get("definition"));
      case "schedule.paused" -> new ScheduleEntry.Paused(o.get("reason").asText());
      case "schedule.resumed" -> new ScheduleEntry.Resumed();
      case "schedule.deleted" -> new ScheduleEntry.Deleted();
      case "schedule.ticks.requested" ->
          new ScheduleEntry.TicksRequested(
              TickSource.fromWire(o.get("source").asText()),
              Instant.parse(o.get("from").asText()),
              Instant.parse(o.get("to").asText()),
              o.get("count").asInt());
      case "schedule.tick.started" ->
          new ScheduleEntry.TickStarted(
              Instant.parse(o.get("nominal").asText()),
              TickSource.fromWire(o.get("source").asText()),
              TickDecision.fromWire(o.get("decision").asText()),
              new RunRef(o.get("runId").asText()),
              o.get("created").asBoolean(),
              o.hasNonNull("canceled")
                  ? Optional.of(new RunRef(o.get("canceled").asText()))
                  : Optional.empty());
      case "schedule.tick.skipped", "schedule.tick.buffered" ->
          new ScheduleEntry.TickNotStarted(
              Instant.parse(o.get("nominal").asText()),
              TickSource.fromWire(o.get("source").asText()),
              TickDecision.fromWire(o.get("decision").asText()));
      default -> throw new IllegalArgumentException("not a schedule entry type: " + type);
    };
  }

  /** The pending ticks as stored: [{"nominal": ..., "source": ...}]. */
  public static JsonNode pending(java.util.List<PendingTick> pending) {
    var a = JsonNodeFactory.instance.arrayNode();
    pending.forEach(
        p -> a.addObject().put("nominal", p.nominal().toString()).put("source", p.source().wire()));
    return a;
  }

  public static java.util.List<PendingTick> pending(JsonNode a) {
    java.util.List<PendingTick> out = new java.util.ArrayList<>();
    a.forEach(
        p ->
            out.add(
                new PendingTick(
                    Instant.parse(p.get("nominal").asText()),
                    TickSource.fromWire(p.get("source").asText()))));
    return out;
  }
}
