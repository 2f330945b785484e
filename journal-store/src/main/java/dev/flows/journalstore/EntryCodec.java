package dev.flows.journalstore;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalEntry.EffectConfirmed;
import dev.flows.kernel.journal.JournalEntry.EffectRecorded;
import dev.flows.kernel.journal.JournalEntry.EffectRef;
import dev.flows.kernel.journal.JournalEntry.EffectTask;
import dev.flows.kernel.journal.JournalEntry.EffectTaskCancel;
import dev.flows.kernel.journal.JournalEntry.RunCancelRequested;
import dev.flows.kernel.journal.JournalEntry.RunCompleted;
import dev.flows.kernel.journal.JournalEntry.RunResumed;
import dev.flows.kernel.journal.JournalEntry.RunSpawned;
import dev.flows.kernel.journal.JournalEntry.StepAnswered;
import dev.flows.kernel.journal.JournalEntry.StepAttemptStarted;
import dev.flows.kernel.journal.JournalEntry.StepCompleted;
import dev.flows.kernel.journal.JournalEntry.StepResolved;
import dev.flows.kernel.journal.RunCompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.TaskNote;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Journal entries as stored: {@code entry_type} is {@link JournalEntry#type()}, {@code run_id},
 * {@code step_id} and {@code attempt} are columns, and {@code payload} holds the other fields by
 * their record names (enums by wire name, instants as ISO-8601 text, absent optionals omitted). The
 * format is public (SURFACE.md) because operators read it with plain SQL.
 */
final class EntryCodec {
  private EntryCodec() {}

  /** The columns of one entry row. */
  record Row(String type, Optional<String> stepId, Optional<Integer> attempt, String payload) {}

  static Row encode(JournalEntry entry) {
    ObjectNode p = RunSpecJson.MAPPER.createObjectNode();
    Optional<String> stepId = Optional.empty();
    Optional<Integer> attempt = Optional.empty();
    switch (entry) {
      case RunSpawned e -> {
        p.set("spec", e.spec());
        p.put("specHash", e.specHash());
        e.parentRunId().ifPresent(id -> p.put("parentRunId", id.value()));
        p.put("admissionKey", e.admissionKey());
        p.put("createdBy", e.createdBy());
        e.rerunOf().ifPresent(id -> p.put("rerunOf", id.value()));
      }
      case RunCancelRequested e -> p.put("reason", e.reason());
      case StepAttemptStarted e -> {
        stepId = Optional.of(e.stepId());
        attempt = Optional.of(e.attempt());
        p.put("stepKind", e.stepKind().wire());
        p.put("idempotencyKey", e.idempotencyKey());
        p.put("leaseId", e.leaseId());
        p.put("leaseDeadline", e.leaseDeadline().toString());
        p.put("workerId", e.workerId().value());
      }
      case StepCompleted e -> {
        stepId = Optional.of(e.stepId());
        attempt = Optional.of(e.attempt());
        p.put("reason", e.reason().wire());
        p.put("disposition", e.disposition().wire());
        e.output().ifPresent(o -> p.set("output", o));
        ArrayNode effects = p.putArray("effects");
        for (EffectRef ref : e.effects()) {
          effects
              .addObject()
              .put("surfacePath", ref.surfacePath())
              .put("idempotencyKey", ref.idempotencyKey());
        }
        e.trajectoryTail().ifPresent(t -> p.set("trajectoryTail", t));
        e.nextAttemptAt().ifPresent(t -> p.put("nextAttemptAt", t.toString()));
      }
      case EffectRecorded e -> {
        stepId = Optional.of(e.stepId());
        attempt = Optional.of(e.attempt());
        p.put("surfacePath", e.surfacePath());
        p.put("idempotencyKey", e.idempotencyKey());
        p.put("takenOver", e.takenOver());
      }
      case EffectConfirmed e -> {
        stepId = Optional.of(e.stepId());
        attempt = Optional.of(e.attempt());
        p.put("surfacePath", e.surfacePath());
        p.put("idempotencyKey", e.idempotencyKey());
        e.output().ifPresent(o -> p.set("output", o));
      }
      case RunCompleted e -> {
        p.put("reason", e.reason().wire());
        e.failedStepId().ifPresent(s -> p.put("failedStepId", s));
      }
      case RunResumed e -> p.put("by", e.by());
      case StepResolved e -> {
        stepId = Optional.of(e.stepId());
        p.put("performed", e.performed());
        e.output().ifPresent(o -> p.set("output", o));
        p.put("by", e.by());
      }
      case StepAnswered e -> {
        stepId = Optional.of(e.stepId());
        p.set("responses", e.responses());
        p.put("by", e.by());
      }
      case EffectTask e -> {
        stepId = Optional.of(e.stepId());
        attempt = Optional.of(e.attempt());
        p.put("surfacePath", e.surfacePath());
        p.put("idempotencyKey", e.idempotencyKey());
        p.put("taskId", e.task().taskId());
        p.put("status", e.task().status());
        e.task().statusMessage().ifPresent(m -> p.put("statusMessage", m));
        e.task().pollIntervalMs().ifPresent(ms -> p.put("pollIntervalMs", ms));
        e.task().ttlMs().ifPresent(ms -> p.put("ttlMs", ms));
        p.put("protocolVersion", e.task().protocolVersion());
      }
      case EffectTaskCancel e -> {
        stepId = Optional.of(e.stepId());
        p.put("surfacePath", e.surfacePath());
        p.put("taskId", e.taskId());
        p.put("reason", e.reason());
        p.put("by", e.by());
      }
    }
    stepId.ifPresent(s -> p.put("stepId", s));
    attempt.ifPresent(a -> p.put("attempt", a));
    return new Row(entry.type(), stepId, attempt, text(p));
  }

  // ---------------------------------------------------------------- f.step hot path

  /**
   * The payload {@link #encode} writes for an {@link EffectRecorded}, written straight to text: the
   * group commit encodes one per {@code f.step}, and building and serializing a tree for five flat
   * fields cost more than the text itself. Same fields, same order (EntryCodecTest compares).
   */
  static String effectRecordedPayload(
      String surfacePath, String idempotencyKey, boolean takenOver, String stepId, int attempt) {
    StringBuilder b = new StringBuilder(PAYLOAD_CAPACITY);
    b.append("{\"surfacePath\":");
    quote(b, surfacePath);
    b.append(",\"idempotencyKey\":");
    quote(b, idempotencyKey);
    b.append(",\"takenOver\":").append(takenOver);
    return stepAndAttempt(b, stepId, attempt);
  }

  /**
   * The payload {@link #encode} writes for an {@link EffectConfirmed} whose output is already
   * serialized ({@code outputJson}, as {@link #text} writes it): the memo is serialized once and
   * used both here and as the election's output.
   */
  static String effectConfirmedPayload(
      String surfacePath,
      String idempotencyKey,
      Optional<String> outputJson,
      String stepId,
      int attempt) {
    StringBuilder b =
        new StringBuilder(PAYLOAD_CAPACITY + outputJson.map(String::length).orElse(0));
    b.append("{\"surfacePath\":");
    quote(b, surfacePath);
    b.append(",\"idempotencyKey\":");
    quote(b, idempotencyKey);
    outputJson.ifPresent(o -> b.append(",\"output\":").append(o));
    return stepAndAttempt(b, stepId, attempt);
  }

  /**
   * Room for the fixed fields of an effect payload (a 64-hex key and short ids), to avoid regrowth.
   */
  private static final int PAYLOAD_CAPACITY = 192;

  private static String stepAndAttempt(StringBuilder b, String stepId, int attempt) {
    b.append(",\"stepId\":");
    quote(b, stepId);
    return b.append(",\"attempt\":").append(attempt).append('}').toString();
  }

  private static void quote(StringBuilder b, String s) {
    b.append('"');
    JsonStringEncoder.getInstance().quoteAsString(s, b);
    b.append('"');
  }

  static JournalEntry decode(RunRef runId, String type, JsonNode p) {
    return switch (type) {
      case "run.spawned" ->
          new RunSpawned(
              runId,
              canonicalSpec(p.get("spec")),
              p.get("specHash").asText(),
              optionalText(p, "parentRunId").map(RunRef::new),
              p.get("admissionKey").asText(),
              p.get("createdBy").asText(),
              optionalText(p, "rerunOf").map(RunRef::new));
      case "run.cancel.requested" -> new RunCancelRequested(runId, p.get("reason").asText());
      case "step.attempt.started" ->
          new StepAttemptStarted(
              runId,
              p.get("stepId").asText(),
              p.get("attempt").asInt(),
              StepKind.fromWire(p.get("stepKind").asText())
                  .orElseThrow(() -> new IllegalStateException("stored step kind unknown")),
              p.get("idempotencyKey").asText(),
              p.get("leaseId").asText(),
              Instant.parse(p.get("leaseDeadline").asText()),
              new WorkerId(p.get("workerId").asText()));
      case "step.completed" -> {
        List<EffectRef> effects = new ArrayList<>();
        p.get("effects")
            .forEach(
                r ->
                    effects.add(
                        new EffectRef(
                            r.get("surfacePath").asText(), r.get("idempotencyKey").asText())));
        yield new StepCompleted(
            runId,
            p.get("stepId").asText(),
            p.get("attempt").asInt(),
            CompletionReason.fromWire(p.get("reason").asText()),
            Disposition.fromWire(p.get("disposition").asText()),
            optionalNode(p, "output"),
            effects,
            optionalNode(p, "trajectoryTail"),
            optionalText(p, "nextAttemptAt").map(Instant::parse));
      }
      case "effect.recorded" ->
          new EffectRecorded(
              runId,
              p.get("stepId").asText(),
              p.get("attempt").asInt(),
              p.get("surfacePath").asText(),
              p.get("idempotencyKey").asText(),
              p.get("takenOver").asBoolean());
      case "effect.confirmed" ->
          new EffectConfirmed(
              runId,
              p.get("stepId").asText(),
              p.get("attempt").asInt(),
              p.get("surfacePath").asText(),
              p.get("idempotencyKey").asText(),
              optionalNode(p, "output"));
      case "run.completed" ->
          new RunCompleted(
              runId,
              RunCompletionReason.fromWire(p.get("reason").asText()),
              optionalText(p, "failedStepId"));
      case "run.resumed" -> new RunResumed(runId, p.get("by").asText());
      case "step.resolved" ->
          new StepResolved(
              runId,
              p.get("stepId").asText(),
              p.get("performed").asBoolean(),
              optionalNode(p, "output"),
              p.get("by").asText());
      case "step.answered" ->
          new StepAnswered(
              runId, p.get("stepId").asText(), p.get("responses"), p.get("by").asText());
      case "effect.task" ->
          new EffectTask(
              runId,
              p.get("stepId").asText(),
              p.get("attempt").asInt(),
              p.get("surfacePath").asText(),
              p.get("idempotencyKey").asText(),
              new TaskNote(
                  p.get("taskId").asText(),
                  p.get("status").asText(),
                  optionalText(p, "statusMessage"),
                  optionalText(p, "pollIntervalMs").map(Long::parseLong),
                  optionalText(p, "ttlMs").map(Long::parseLong),
                  p.get("protocolVersion").asText()));
      case "effect.task.cancel" ->
          new EffectTaskCancel(
              runId,
              p.get("stepId").asText(),
              p.get("surfacePath").asText(),
              p.get("taskId").asText(),
              p.get("reason").asText(),
              p.get("by").asText());
      default -> throw new IllegalStateException("stored journal entry type unknown: " + type);
    };
  }

  /**
   * jsonb keeps numbers but not Jackson's node classes (a long 100 reads back as an int node), so a
   * stored spec is rebuilt through the canonical writer to compare equal to the original.
   */
  static JsonNode canonicalSpec(JsonNode stored) {
    if (!stored.isObject()) {
      return stored;
    }
    return RunSpecJson.write(StoredSpecs.readRun(stored));
  }

  static JsonNode parse(String json) {
    try {
      return RunSpecJson.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored JSON does not parse", e);
    }
  }

  static String text(JsonNode node) {
    try {
      return RunSpecJson.MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }

  private static Optional<JsonNode> optionalNode(JsonNode p, String field) {
    return p.has(field) ? Optional.of(p.get(field)) : Optional.empty();
  }

  private static Optional<String> optionalText(JsonNode p, String field) {
    return p.hasNonNull(field) ? Optional.of(p.get(field).asText()) : Optional.empty();
  }
}
