package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.DurableInput;
import dev.flows.kernel.journal.DurableTasks;
import dev.flows.kernel.journal.EntryJson;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunFailure;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.journal.ToolApproval;
import dev.flows.kernel.keys.SecretKeys;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.mcp.McpReceipt;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A run as scripts read it (the JSON of {@code runs show}, {@code runs watch} and {@code run}): the
 * tree of a run and its children with each step's attempts, leases, effects, receipts and
 * diagnostics (all derived from the journal), and one object per journal entry. {@link RunText}
 * prints the same for people.
 */
final class RunJson {
  /** Children deeper than this are summarized, not expanded (a guard against runaway trees). */
  static final int MAX_DEPTH = 16;

  private RunJson() {}

  /** The run, its steps and timeline, and its children nested below it. */
  static ObjectNode tree(Journal journal, RunSnapshot run, int depth) {
    List<JournalRecord> entries = journal.entries(run.runId());
    ObjectNode r = summary(run);
    r.put("label", StepLabel.ofRun(run.spec(), run.name(), run.parentRunId().isPresent()));
    RunWaits.put(r, run.status().wire(), RunWaits.of(journal, run, entries));
    ArrayNode steps = r.putArray("steps");
    for (StepSnapshot s : run.steps()) {
      ObjectNode o = step(s, entries);
      o.put("label", StepLabel.of(run.spec(), s.stepId()));
      RunWaits.put(o, s.status().wire(), RunWaits.step(journal, run, s, entries));
      DurableTasks.of(entries, s.stepId()).ifPresent(t -> o.set("task", task(t)));
      for (JsonNode st : run.spec().path("steps")) {
        if (st.path("id").asText().equals(s.stepId())) {
          CallPolicyView.of(st).ifPresent(p -> o.set("policy", p));
        }
      }
      if (s.status() == StepStatus.PARKED) {
        ResolveTarget target = resolveTarget(journal, run, s.stepId(), depth);
        o.put("resolveCommand", target.command());
        target.input().ifPresent(park -> o.set("inputRequest", inputRequest(target, park)));
      }
      steps.add(o);
    }
    r.set("usage", RunUsage.own(entries, run.spec()));
    RunUsage.budget(run.spec()).ifPresent(b -> r.set("budget", b));
    ArrayNode timeline = r.putArray("timeline");
    entries.forEach(e -> timeline.add(entry(e)));
    ArrayNode children = r.putArray("children");
    for (RunRef child : journal.children(run.runId())) {
      Optional<RunSnapshot> c = journal.run(child);
      if (c.isEmpty()) {
        continue;
      }
      if (depth >= MAX_DEPTH) {
        children.add(summary(c.get()).put("truncated", true));
      } else {
        children.add(tree(journal, c.get(), depth + 1));
      }
    }
    if (!children.isEmpty()) {
      List<JsonNode> kids = new java.util.ArrayList<>();
      children.forEach(kids::add);
      r.set("treeUsage", RunUsage.tree(r.get("usage"), kids));
    }
    // What a person or a client reads: a sealed secret value shows as "***".
    return (ObjectNode) SecretKeys.mask(r);
  }

  /**
   * Where an operator resolves a parked step: the step itself, or the parked child it awaits;
   * {@code input} is the park's trajectory tail when the call waits for input (then it is answered,
   * not resolved).
   */
  record ResolveTarget(RunRef run, String stepId, boolean mcpCall, Optional<JsonNode> input) {
    String command() {
      if (input.filter(ToolApproval::asks).isPresent()) {
        return "flows runs answer "
            + run.value()
            + " "
            + stepId
            + " '{\"approve\":true}' | '{\"deny\":\"REASON\"}' | '{\"args\":{...}}'";
      }
      if (input.isPresent()) {
        return "flows runs answer "
            + run.value()
            + " "
            + stepId
            + " 'RESPONSE_JSON' (or --decline)";
      }
      return "flows runs resolve "
          + run.value()
          + " "
          + stepId
          + " (--performed '"
          + (mcpCall ? "RESULT_JSON" : "OUTPUT_JSON")
          + "' | --not-performed)";
    }
  }

  /**
   * The step to resolve for a parked step of {@code run}: a body parks when the child run it awaits
   * parks, so while a child is parked the child's parked step is the one to resolve.
   */
  static ResolveTarget resolveTarget(Journal journal, RunSnapshot run, String stepId, int depth) {
    if (depth < MAX_DEPTH) {
      for (RunRef child : journal.children(run.runId())) {
        Optional<RunSnapshot> c = journal.run(child).filter(x -> x.status() == RunStatus.PARKED);
        Optional<StepSnapshot> parked =
            c.flatMap(
                x -> x.steps().stream().filter(st -> st.status() == StepStatus.PARKED).findFirst());
        if (parked.isPresent()) {
          return resolveTarget(journal, c.get(), parked.get().stepId(), depth + 1);
        }
      }
    }
    Optional<JsonNode> input =
        run.step(stepId).filter(st -> st.status() == StepStatus.PARKED).isPresent()
            ? DurableInput.parked(journal.entries(run.runId()), stepId)
            : Optional.empty();
    return new ResolveTarget(run.runId(), stepId, isMcpCall(run.spec(), stepId), input);
  }

  /**
   * What a call parked for input asks: {@code {runId, stepId, server, tool, requests, message}}
   * where {@code requests} holds each request as the server sent it (a form's {@code
   * requestedSchema}, a URL) under the server's key. The {@code requestState} stays in the journal:
   * it is the server's, echoed, never shown.
   */
  static ObjectNode inputRequest(ResolveTarget target, JsonNode park) {
    ObjectNode o = Session.JSON.createObjectNode();
    o.put("runId", target.run().value());
    o.put("stepId", target.stepId());
    o.put("server", park.path("server").asText());
    o.put("tool", park.path("tool").asText());
    o.set("requests", park.path(DurableInput.REQUESTS));
    o.put("message", park.path("message").asText());
    return o;
  }

  private static boolean isMcpCall(JsonNode spec, String stepId) {
    for (JsonNode st : spec.path("steps")) {
      if (st.path("id").asText().equals(stepId)) {
        return McpReceipt.TYPE.equals(st.path("agent").path("instruction").path("type").asText());
      }
    }
    return false;
  }

  /**
   * Why a failed run failed ({@link RunFailure}): the diagnostic (trajectory tail) of its failing
   * attempt, with {@code stepId} added; a step that failed without one (its retries ran out on
   * lease expiry) answers {@code {stepId, diagnostic: <reason>}}. Empty unless the run failed.
   */
  static Optional<ObjectNode> failure(Journal journal, RunSnapshot run) {
    return RunFailure.of(run, journal.entries(run.runId()))
        .flatMap(RunFailure::attempt)
        .map(
            c -> {
              ObjectNode f = Session.JSON.createObjectNode().put("stepId", c.stepId());
              c.trajectoryTail()
                  .filter(JsonNode::isObject)
                  .ifPresentOrElse(
                      t -> f.setAll((ObjectNode) SecretKeys.mask(t.deepCopy())),
                      () -> f.put("diagnostic", c.reason().wire()));
              return f;
            });
  }

  static ObjectNode summary(RunSnapshot run) {
    ObjectNode r = Session.JSON.createObjectNode();
    r.put("runId", run.runId().value());
    r.put("name", run.name());
    r.put("status", run.status().wire());
    r.put("parentRunId", run.parentRunId().map(RunRef::value).orElse(null));
    r.put("admissionKey", run.admissionKey());
    r.put("specHash", run.specHash());
    r.put("createdAt", run.createdAt().toString());
    r.put("completedAt", run.completedAt().map(Instant::toString).orElse(null));
    r.put("completionReason", run.completionReason().map(c -> c.wire()).orElse(null));
    r.put("rerunOf", run.rerunOf().map(RunRef::value).orElse(null));
    r.put("queue", run.queue());
    run.waitingReason().ifPresent(w -> r.put("waitingReason", w));
    return r;
  }

  private static ObjectNode step(StepSnapshot s, List<JournalRecord> entries) {
    ObjectNode o = Session.JSON.createObjectNode();
    o.put("stepId", s.stepId());
    o.put("kind", s.kind().wire());
    o.put("status", s.status().wire());
    o.put("attemptCount", s.attempts());
    o.put("notBefore", s.notBefore().toString());
    o.put("lastReason", s.lastReason().map(c -> c.wire()).orElse(null));
    o.set("output", s.output().orElse(null));
    s.output().filter(RunJson::isReceipt).ifPresent(receipt -> o.set("receipt", receipt));
    Map<Integer, ObjectNode> attempts = new LinkedHashMap<>();
    Map<String, ObjectNode> effects = new LinkedHashMap<>();
    for (JournalRecord rec : entries) {
      add(o, s.stepId(), rec, attempts, effects);
    }
    ArrayNode a = o.putArray("attempts");
    attempts.values().forEach(a::add);
    ArrayNode e = o.putArray("effects");
    effects.values().forEach(e::add);
    BodyWait.of(s, entries).ifPresent(w -> o.set("waitsFor", w));
    return o;
  }

  /** What {@code rec} says about step {@code stepId}: an attempt, an effect, a resolution. */
  private static void add(
      ObjectNode o,
      String stepId,
      JournalRecord rec,
      Map<Integer, ObjectNode> attempts,
      Map<String, ObjectNode> effects) {
    switch (rec.entry()) {
      case JournalEntry.StepAttemptStarted a when a.stepId().equals(stepId) -> {
        ObjectNode at = Session.JSON.createObjectNode();
        at.put("attempt", a.attempt());
        at.put("workerId", a.workerId().value());
        at.put("leaseId", a.leaseId());
        at.put("leaseDeadline", a.leaseDeadline().toString());
        at.put("idempotencyKey", a.idempotencyKey());
        at.put("startedAt", rec.at().toString());
        attempts.put(a.attempt(), at);
      }
      case JournalEntry.StepCompleted c when c.stepId().equals(stepId) -> {
        ObjectNode at = attempts.computeIfAbsent(c.attempt(), k -> attemptStub(k));
        at.put("endedAt", rec.at().toString());
        at.put("reason", c.reason().wire());
        at.put("disposition", c.disposition().wire());
        at.put("nextAttemptAt", c.nextAttemptAt().map(Instant::toString).orElse(null));
        c.trajectoryTail().ifPresent(t -> at.set("diagnostic", t));
      }
      case JournalEntry.EffectRecorded e when e.stepId().equals(stepId) -> {
        ObjectNode ef = effects.computeIfAbsent(e.surfacePath(), k -> effectStub(k));
        ef.put("idempotencyKey", e.idempotencyKey());
        ef.put("attempt", e.attempt());
        ef.put("recordedAt", rec.at().toString());
        ef.put("takenOver", e.takenOver());
        ef.put("confirmed", false);
      }
      case JournalEntry.EffectConfirmed e when e.stepId().equals(stepId) -> {
        ObjectNode ef = effects.computeIfAbsent(e.surfacePath(), k -> effectStub(k));
        ef.put("idempotencyKey", e.idempotencyKey());
        ef.put("attempt", e.attempt());
        ef.put("confirmed", true);
        ef.put("confirmedAt", rec.at().toString());
        ef.set("output", e.output().orElse(null));
      }
      case JournalEntry.StepResolved r when r.stepId().equals(stepId) -> {
        o.put("resolvedBy", r.by());
        o.put("resolvedPerformed", r.performed());
      }
      default -> {
        // Entries of other steps, or run-scoped ones: they are in the run's timeline.
      }
    }
  }

  private static ObjectNode attemptStub(int attempt) {
    return Session.JSON.createObjectNode().put("attempt", attempt);
  }

  private static ObjectNode effectStub(String surfacePath) {
    return Session.JSON.createObjectNode().put("surfacePath", surfacePath);
  }

  /** An MCP receipt: {@code {"type":"mcp", server, tool, input, output, idempotencyKey}}. */
  static boolean isReceipt(JsonNode output) {
    return output.isObject() && McpReceipt.TYPE.equals(output.path("type").asText());
  }

  /**
   * A step's task as {@code runs show --json} gives it: the latest note's fields, {@code
   * createdAt}, {@code updatedAt}, and {@code cancelSentAt} / {@code cancelReason} once flows sent
   * {@code tasks/cancel}.
   */
  static ObjectNode task(DurableTasks.StepTask t) {
    ObjectNode o = task(t.latest());
    o.put("createdAt", t.createdAt().toString());
    o.put("updatedAt", t.updatedAt().toString());
    t.cancelSentAt().ifPresent(at -> o.put("cancelSentAt", at.toString()));
    t.cancelReason().ifPresent(r -> o.put("cancelReason", r));
    return o;
  }

  /** A task note as JSON: {@code taskId, status, statusMessage?, pollIntervalMs?, ttlMs?}. */
  static ObjectNode task(dev.flows.kernel.journal.TaskNote t) {
    return EntryJson.task(t);
  }

  /** One journal entry as JSON: {@code seq}, {@code at}, {@code type} and its fields. */
  static ObjectNode entry(JournalRecord rec) {
    return EntryJson.timeline(rec);
  }
}
