package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.JournalEntry.EffectConfirmed;
import dev.flows.kernel.journal.JournalEntry.EffectRecorded;
import dev.flows.kernel.journal.JournalEntry.EffectRef;
import dev.flows.kernel.journal.JournalEntry.EffectTask;
import dev.flows.kernel.journal.JournalEntry.EffectTaskCancel;
import dev.flows.kernel.journal.JournalEntry.RunCancelRequested;
import dev.flows.kernel.journal.JournalEntry.RunCompleted;
import dev.flows.kernel.journal.JournalEntry.RunResumed;
import dev.flows.kernel.journal.JournalEntry.RunSpawned;
import dev.flows.kernel.journal.JournalEntry.RunUpgraded;
import dev.flows.kernel.journal.JournalEntry.StepAnswered;
import dev.flows.kernel.journal.JournalEntry.StepAttemptStarted;
import dev.flows.kernel.journal.JournalEntry.StepCompleted;
import dev.flows.kernel.journal.JournalEntry.StepResolved;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one JSON form of a journal entry: its {@link #payload} (each field by its record name, enums
 * by wire name, instants as ISO-8601 text, absent optionals omitted) is what the Postgres journal
 * stores, and {@link #timeline} is the same fields as {@code runs show --json}, the console and
 * {@code /api} show them. Both are public formats (SURFACE.md): operators read the first with SQL,
 * scripts the second.
 */
public final class EntryJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** A task note's fields in the payload, nested under {@code task} in the timeline. */
  private static final List<String> TASK_FIELDS =
      List.of("taskId", "status", "statusMessage", "pollIntervalMs", "ttlMs", "protocolVersion");

  /**
   * The timeline's fields per entry type, in order: a field the payload omits (an absent optional)
   * reads as JSON null. {@code run.spawned} leaves out the spec (it is the run's, shown once) and
   * {@code rerunOf} (the run summary has it).
   */
  private static final Map<String, List<String>> TIMELINE_FIELDS =
      Map.ofEntries(
          Map.entry("run.spawned", List.of("specHash", "parentRunId", "admissionKey", "createdBy")),
          Map.entry("run.cancel.requested", List.of("reason")),
          Map.entry(
              "step.attempt.started",
              List.of(
                  "stepId",
                  "attempt",
                  "stepKind",
                  "idempotencyKey",
                  "leaseId",
                  "leaseDeadline",
                  "workerId")),
          Map.entry(
              "step.completed",
              List.of(
                  "stepId",
                  "attempt",
                  "reason",
                  "disposition",
                  "output",
                  "effects",
                  "trajectoryTail",
                  "nextAttemptAt")),
          Map.entry(
              "effect.recorded",
              List.of("stepId", "attempt", "surfacePath", "idempotencyKey", "takenOver")),
          Map.entry(
              "effect.confirmed",
              List.of("stepId", "attempt", "surfacePath", "idempotencyKey", "output")),
          Map.entry("run.completed", List.of("reason", "failedStepId")),
          Map.entry("run.resumed", List.of("by")),
          Map.entry(
              "run.upgraded", List.of("fromVersion", "fromRoute", "toVersion", "toRoute", "by")),
          Map.entry("step.resolved", List.of("stepId", "performed", "output", "by")),
          Map.entry("step.answered", List.of("stepId", "responses", "by")),
          Map.entry(
              "effect.task", List.of("stepId", "attempt", "surfacePath", "idempotencyKey", "task")),
          Map.entry(
              "effect.task.cancel", List.of("stepId", "surfacePath", "taskId", "reason", "by")));

  private EntryJson() {}

  /** The entry's fields (the run id and type excluded: they are the row's, or the record's). */
  public static ObjectNode payload(JournalEntry entry) {
    ObjectNode p = NODES.objectNode();
    switch (entry) {
      case RunSpawned e -> runSpawned(p, e);
      case RunCancelRequested e -> p.put("reason", e.reason());
      case StepAttemptStarted e -> attemptStarted(p, e);
      case StepCompleted e -> stepCompleted(p, e);
      case EffectRecorded e -> {
        p.put("surfacePath", e.surfacePath());
        p.put("idempotencyKey", e.idempotencyKey());
        p.put("takenOver", e.takenOver());
        stepAndAttempt(p, e.stepId(), e.attempt());
      }
      case EffectConfirmed e -> {
        p.put("surfacePath", e.surfacePath());
        p.put("idempotencyKey", e.idempotencyKey());
        e.output().ifPresent(o -> p.set("output", o));
        stepAndAttempt(p, e.stepId(), e.attempt());
      }
      case RunCompleted e -> {
        p.put("reason", e.reason().wire());
        e.failedStepId().ifPresent(s -> p.put("failedStepId", s));
      }
      case RunResumed e -> p.put("by", e.by());
      case RunUpgraded e -> runUpgraded(p, e);
      case StepResolved e -> stepResolved(p, e);
      case StepAnswered e -> {
        p.set("responses", e.responses());
        p.put("by", e.by());
        p.put("stepId", e.stepId());
      }
      case EffectTask e -> effectTask(p, e);
      case EffectTaskCancel e -> {
        p.put("surfacePath", e.surfacePath());
        p.put("taskId", e.taskId());
        p.put("reason", e.reason());
        p.put("by", e.by());
        p.put("stepId", e.stepId());
      }
    }
    return p;
  }

  private static void runSpawned(ObjectNode p, RunSpawned e) {
    p.set("spec", e.spec());
    p.put("specHash", e.specHash());
    e.parentRunId().ifPresent(id -> p.put("parentRunId", id.value()));
    p.put("admissionKey", e.admissionKey());
    p.put("createdBy", e.createdBy());
    e.rerunOf().ifPresent(id -> p.put("rerunOf", id.value()));
  }

  private static void attemptStarted(ObjectNode p, StepAttemptStarted e) {
    p.put("stepKind", e.stepKind().wire());
    p.put("idempotencyKey", e.idempotencyKey());
    p.put("leaseId", e.leaseId());
    p.put("leaseDeadline", e.leaseDeadline().toString());
    p.put("workerId", e.workerId().value());
    stepAndAttempt(p, e.stepId(), e.attempt());
  }

  private static void stepCompleted(ObjectNode p, StepCompleted e) {
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
    stepAndAttempt(p, e.stepId(), e.attempt());
  }

  private static void runUpgraded(ObjectNode p, RunUpgraded e) {
    p.put("fromVersion", e.fromVersion());
    p.put("fromRoute", e.fromRoute());
    p.put("toVersion", e.toVersion());
    p.put("toRoute", e.toRoute());
    p.put("by", e.by());
  }

  private static void stepResolved(ObjectNode p, StepResolved e) {
    p.put("performed", e.performed());
    e.output().ifPresent(o -> p.set("output", o));
    p.put("by", e.by());
    p.put("stepId", e.stepId());
  }

  private static void effectTask(ObjectNode p, EffectTask e) {
    p.put("surfacePath", e.surfacePath());
    p.put("idempotencyKey", e.idempotencyKey());
    p.setAll(task(e.task()));
    stepAndAttempt(p, e.stepId(), e.attempt());
  }

  private static void stepAndAttempt(ObjectNode p, String stepId, int attempt) {
    p.put("stepId", stepId);
    p.put("attempt", attempt);
  }

  /**
   * A task note: {@code taskId, status, statusMessage?, pollIntervalMs?, ttlMs?, protocolVersion}.
   */
  public static ObjectNode task(TaskNote t) {
    ObjectNode o = NODES.objectNode();
    o.put("taskId", t.taskId()).put("status", t.status());
    t.statusMessage().ifPresent(m -> o.put("statusMessage", m));
    t.pollIntervalMs().ifPresent(ms -> o.put("pollIntervalMs", ms));
    t.ttlMs().ifPresent(ms -> o.put("ttlMs", ms));
    o.put("protocolVersion", t.protocolVersion());
    return o;
  }

  /**
   * One entry as a timeline shows it: {@code seq}, {@code at}, {@code type}, {@code runId}, then
   * the {@link #payload}'s fields (absent optionals as null; an {@code effect.task}'s note under
   * {@code task}), sealed secret values shown as {@code "***"}.
   */
  public static ObjectNode timeline(JournalRecord rec) {
    JournalEntry entry = rec.entry();
    ObjectNode p = payload(entry);
    ObjectNode o = NODES.objectNode();
    o.put("seq", rec.seq());
    o.put("at", rec.at().toString());
    o.put("type", entry.type());
    o.put("runId", entry.runId().value());
    for (String field : TIMELINE_FIELDS.get(entry.type())) {
      if (field.equals("task")) {
        ObjectNode task = o.putObject("task");
        TASK_FIELDS.stream().filter(p::has).forEach(f -> task.set(f, p.get(f)));
      } else {
        o.set(field, p.has(field) ? p.get(field) : NullNode.getInstance());
      }
    }
    return (ObjectNode) dev.flows.kernel.keys.SecretKeys.mask(o);
  }

  /** The entry {@code type} whose {@link #payload} is {@code p}, of run {@code runId}. */
  public static JournalEntry decode(RunRef runId, String type, JsonNode p) {
    return EntryJsonReader.decode(runId, type, p);
  }

  /** The payload fields a timeline leaves out (see {@link #timeline}). */
  static List<String> timelineOmits(String type) {
    return type.equals("run.spawned") ? List.of("spec", "rerunOf") : List.of();
  }

  static Optional<List<String>> timelineFields(String type) {
    return Optional.ofNullable(TIMELINE_FIELDS.get(type));
  }
}
