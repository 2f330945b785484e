package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
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
import dev.flows.kernel.spec.StepKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads an {@link EntryJson#payload} back into its entry. The payload was written by flows, so its
 * shape is trusted: a row that does not read is a corrupted database and fails loudly.
 */
final class EntryJsonReader {
  private EntryJsonReader() {}

  static JournalEntry decode(RunRef runId, String type, JsonNode p) {
    return switch (type) {
      case "run.spawned", "run.cancel.requested", "run.completed", "run.resumed", "run.upgraded" ->
          runScoped(runId, type, p);
      case "step.attempt.started", "step.completed", "step.resolved", "step.answered" ->
          stepScoped(runId, type, p);
      case "effect.recorded", "effect.confirmed", "effect.task", "effect.task.cancel" ->
          effect(runId, type, p);
      default -> throw new IllegalStateException("stored journal entry type unknown: " + type);
    };
  }

  private static JournalEntry runScoped(RunRef runId, String type, JsonNode p) {
    return switch (type) {
      case "run.spawned" ->
          new RunSpawned(
              runId,
              p.get("spec"),
              text(p, "specHash"),
              optionalText(p, "parentRunId").map(RunRef::new),
              text(p, "admissionKey"),
              text(p, "createdBy"),
              optionalText(p, "rerunOf").map(RunRef::new));
      case "run.cancel.requested" -> new RunCancelRequested(runId, text(p, "reason"));
      case "run.completed" ->
          new RunCompleted(
              runId,
              RunCompletionReason.fromWire(text(p, "reason")),
              optionalText(p, "failedStepId"));
      case "run.upgraded" ->
          new RunUpgraded(
              runId,
              text(p, "fromVersion"),
              text(p, "fromRoute"),
              text(p, "toVersion"),
              text(p, "toRoute"),
              text(p, "by"));
      default -> new RunResumed(runId, text(p, "by"));
    };
  }

  private static JournalEntry stepScoped(RunRef runId, String type, JsonNode p) {
    return switch (type) {
      case "step.attempt.started" ->
          new StepAttemptStarted(
              runId,
              text(p, "stepId"),
              p.get("attempt").asInt(),
              StepKind.fromWire(text(p, "stepKind"))
                  .orElseThrow(() -> new IllegalStateException("stored step kind unknown")),
              text(p, "idempotencyKey"),
              text(p, "leaseId"),
              Instant.parse(text(p, "leaseDeadline")),
              new WorkerId(text(p, "workerId")));
      case "step.completed" -> stepCompleted(runId, p);
      case "step.resolved" ->
          new StepResolved(
              runId,
              text(p, "stepId"),
              p.get("performed").asBoolean(),
              optionalNode(p, "output"),
              text(p, "by"));
      default -> new StepAnswered(runId, text(p, "stepId"), p.get("responses"), text(p, "by"));
    };
  }

  private static StepCompleted stepCompleted(RunRef runId, JsonNode p) {
    List<EffectRef> effects = new ArrayList<>();
    p.get("effects")
        .forEach(
            r -> effects.add(new EffectRef(text(r, "surfacePath"), text(r, "idempotencyKey"))));
    return new StepCompleted(
        runId,
        text(p, "stepId"),
        p.get("attempt").asInt(),
        CompletionReason.fromWire(text(p, "reason")),
        Disposition.fromWire(text(p, "disposition")),
        optionalNode(p, "output"),
        effects,
        optionalNode(p, "trajectoryTail"),
        optionalText(p, "nextAttemptAt").map(Instant::parse));
  }

  private static JournalEntry effect(RunRef runId, String type, JsonNode p) {
    return switch (type) {
      case "effect.recorded" ->
          new EffectRecorded(
              runId,
              text(p, "stepId"),
              p.get("attempt").asInt(),
              text(p, "surfacePath"),
              text(p, "idempotencyKey"),
              p.get("takenOver").asBoolean());
      case "effect.confirmed" ->
          new EffectConfirmed(
              runId,
              text(p, "stepId"),
              p.get("attempt").asInt(),
              text(p, "surfacePath"),
              text(p, "idempotencyKey"),
              optionalNode(p, "output"));
      case "effect.task" ->
          new EffectTask(
              runId,
              text(p, "stepId"),
              p.get("attempt").asInt(),
              text(p, "surfacePath"),
              text(p, "idempotencyKey"),
              taskNote(p));
      default ->
          new EffectTaskCancel(
              runId,
              text(p, "stepId"),
              text(p, "surfacePath"),
              text(p, "taskId"),
              text(p, "reason"),
              text(p, "by"));
    };
  }

  private static TaskNote taskNote(JsonNode p) {
    return new TaskNote(
        text(p, "taskId"),
        text(p, "status"),
        optionalText(p, "statusMessage"),
        optionalText(p, "pollIntervalMs").map(Long::parseLong),
        optionalText(p, "ttlMs").map(Long::parseLong),
        text(p, "protocolVersion"));
  }

  private static String text(JsonNode p, String field) {
    return p.get(field).asText();
  }

  private static Optional<JsonNode> optionalNode(JsonNode p, String field) {
    return p.has(field) ? Optional.of(p.get(field)) : Optional.empty();
  }

  private static Optional<String> optionalText(JsonNode p, String field) {
    return p.hasNonNull(field) ? Optional.of(p.get(field).asText()) : Optional.empty();
  }
}
