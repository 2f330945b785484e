package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunId;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.mcp.McpReceipt;
import java.io.PrintStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a run reads to people and scripts: the tree of a run and its children with each step's
 * attempts, leases, effects, receipts and diagnostics (all derived from the journal), and one
 * progress line per journal entry. Shared by {@code runs show}, {@code runs watch} and {@code run}.
 */
final class RunView {
  /** Children deeper than this are summarized, not expanded (a guard against runaway trees). */
  static final int MAX_DEPTH = 16;

  private RunView() {}

  /** The run, its steps and timeline, and its children nested below it. */
  static ObjectNode tree(Journal journal, RunSnapshot run, int depth) {
    List<JournalRecord> entries = journal.entries(run.runId());
    ObjectNode r = summary(run);
    ArrayNode steps = r.putArray("steps");
    for (StepSnapshot s : run.steps()) {
      ObjectNode o = step(s, entries);
      for (JsonNode st : run.spec().path("steps")) {
        if (st.path("id").asText().equals(s.stepId())) {
          CallPolicyView.of(st).ifPresent(p -> o.set("policy", p));
        }
      }
      if (s.status() == StepStatus.PARKED) {
        o.put("resolveCommand", resolveTarget(journal, run, s.stepId(), depth).command());
      }
      steps.add(o);
    }
    ArrayNode timeline = r.putArray("timeline");
    entries.forEach(e -> timeline.add(entry(e)));
    ArrayNode children = r.putArray("children");
    for (RunId child : journal.children(run.runId())) {
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
    return r;
  }

  /** Where an operator resolves a parked step: the step itself, or the parked child it awaits. */
  record ResolveTarget(RunId run, String stepId, boolean mcpCall) {
    String command() {
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
      for (RunId child : journal.children(run.runId())) {
        Optional<RunSnapshot> c = journal.run(child).filter(x -> x.status() == RunStatus.PARKED);
        Optional<StepSnapshot> parked =
            c.flatMap(
                x -> x.steps().stream().filter(st -> st.status() == StepStatus.PARKED).findFirst());
        if (parked.isPresent()) {
          return resolveTarget(journal, c.get(), parked.get().stepId(), depth + 1);
        }
      }
    }
    return new ResolveTarget(run.runId(), stepId, isMcpCall(run.spec(), stepId));
  }

  private static boolean isMcpCall(JsonNode spec, String stepId) {
    for (JsonNode st : spec.path("steps")) {
      if (st.path("id").asText().equals(stepId)) {
        return McpReceipt.TYPE.equals(st.path("agent").path("instruction").path("type").asText());
      }
    }
    return false;
  }

  /** What each placeholder of a resolve command stands for, one line. */
  static String resolveHelp(String command) {
    return command.contains("RESULT_JSON")
        ? "RESULT_JSON is the tool's result as the server reports it,"
            + " {\"content\":[…],\"structuredContent\":{…},\"isError\":false}, or its"
            + " structured content as a bare JSON object; --not-performed sends the call again"
        : "OUTPUT_JSON is the step's output; --not-performed runs the step again";
  }

  /**
   * Why a failed run failed: the last diagnostic (trajectory tail) of its failed step, with {@code
   * stepId} added; a step that failed without one (its retries ran out on lease expiry) answers
   * {@code {stepId, diagnostic: <reason>}}. Empty unless the run failed.
   */
  static Optional<ObjectNode> failure(Journal journal, RunSnapshot run) {
    if (run.status() != RunStatus.FAILED) {
      return Optional.empty();
    }
    Optional<String> failedStep = Optional.empty();
    Optional<JournalEntry.StepCompleted> last = Optional.empty();
    List<JournalRecord> entries = journal.entries(run.runId());
    for (JournalRecord rec : entries) {
      if (rec.entry() instanceof JournalEntry.RunCompleted c) {
        failedStep = c.failedStepId();
      }
    }
    for (JournalRecord rec : entries) {
      if (rec.entry() instanceof JournalEntry.StepCompleted c
          && failedStep.map(c.stepId()::equals).orElse(true)
          && c.reason() != dev.flows.kernel.journal.CompletionReason.SUCCESS) {
        last = Optional.of(c);
      }
    }
    return last.map(
        c -> {
          ObjectNode f = Session.JSON.createObjectNode().put("stepId", c.stepId());
          c.trajectoryTail()
              .filter(JsonNode::isObject)
              .ifPresentOrElse(
                  t -> f.setAll((ObjectNode) t.deepCopy()),
                  () -> f.put("diagnostic", c.reason().wire()));
          return f;
        });
  }

  /** A failure in one line: {@code step S: <diagnostic>: <message> (fix: <fix>)}. */
  static String failureText(JsonNode f) {
    return "step "
        + f.path("stepId").asText()
        + ": "
        + f.path("diagnostic").asText("failed")
        + (f.hasNonNull("message") ? ": " + Database.oneLine(clip(f.get("message").asText())) : "")
        + (f.hasNonNull("fix") ? " (fix: " + f.get("fix").asText() + ")" : "");
  }

  static ObjectNode summary(RunSnapshot run) {
    ObjectNode r = Session.JSON.createObjectNode();
    r.put("runId", run.runId().value());
    r.put("name", run.name());
    r.put("status", run.status().wire());
    r.put("parentRunId", run.parentRunId().map(RunId::value).orElse(null));
    r.put("admissionKey", run.admissionKey());
    r.put("specHash", run.specHash());
    r.put("createdAt", run.createdAt().toString());
    r.put("completedAt", run.completedAt().map(Instant::toString).orElse(null));
    r.put("completionReason", run.completionReason().map(c -> c.wire()).orElse(null));
    r.put("rerunOf", run.rerunOf().map(RunId::value).orElse(null));
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
    s.output().filter(RunView::isReceipt).ifPresent(receipt -> o.set("receipt", receipt));
    Map<Integer, ObjectNode> attempts = new LinkedHashMap<>();
    Map<String, ObjectNode> effects = new LinkedHashMap<>();
    for (JournalRecord rec : entries) {
      switch (rec.entry()) {
        case JournalEntry.StepAttemptStarted a when a.stepId().equals(s.stepId()) -> {
          ObjectNode at = Session.JSON.createObjectNode();
          at.put("attempt", a.attempt());
          at.put("workerId", a.workerId().value());
          at.put("leaseId", a.leaseId());
          at.put("leaseDeadline", a.leaseDeadline().toString());
          at.put("idempotencyKey", a.idempotencyKey());
          at.put("startedAt", rec.at().toString());
          attempts.put(a.attempt(), at);
        }
        case JournalEntry.StepCompleted c when c.stepId().equals(s.stepId()) -> {
          ObjectNode at = attempts.computeIfAbsent(c.attempt(), k -> attemptStub(k));
          at.put("endedAt", rec.at().toString());
          at.put("reason", c.reason().wire());
          at.put("disposition", c.disposition().wire());
          at.put("nextAttemptAt", c.nextAttemptAt().map(Instant::toString).orElse(null));
          c.trajectoryTail().ifPresent(t -> at.set("diagnostic", t));
        }
        case JournalEntry.EffectRecorded e when e.stepId().equals(s.stepId()) -> {
          ObjectNode ef = effects.computeIfAbsent(e.surfacePath(), k -> effectStub(k));
          ef.put("idempotencyKey", e.idempotencyKey());
          ef.put("attempt", e.attempt());
          ef.put("recordedAt", rec.at().toString());
          ef.put("takenOver", e.takenOver());
          ef.put("confirmed", false);
        }
        case JournalEntry.EffectConfirmed e when e.stepId().equals(s.stepId()) -> {
          ObjectNode ef = effects.computeIfAbsent(e.surfacePath(), k -> effectStub(k));
          ef.put("idempotencyKey", e.idempotencyKey());
          ef.put("attempt", e.attempt());
          ef.put("confirmed", true);
          ef.put("confirmedAt", rec.at().toString());
          ef.set("output", e.output().orElse(null));
        }
        case JournalEntry.StepResolved r when r.stepId().equals(s.stepId()) -> {
          o.put("resolvedBy", r.by());
          o.put("resolvedPerformed", r.performed());
        }
        default -> {
          // Entries of other steps, or run-scoped ones: they are in the run's timeline.
        }
      }
    }
    ArrayNode a = o.putArray("attempts");
    attempts.values().forEach(a::add);
    ArrayNode e = o.putArray("effects");
    effects.values().forEach(e::add);
    BodyWait.of(s, entries).ifPresent(w -> o.set("waitsFor", w));
    return o;
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

  /** One journal entry as JSON: {@code seq}, {@code at}, {@code type} and its fields. */
  static ObjectNode entry(JournalRecord rec) {
    ObjectNode o = Session.JSON.createObjectNode();
    o.put("seq", rec.seq());
    o.put("at", rec.at().toString());
    o.put("type", rec.entry().type());
    o.put("runId", rec.entry().runId().value());
    switch (rec.entry()) {
      case JournalEntry.RunSpawned e -> {
        o.put("specHash", e.specHash());
        o.put("parentRunId", e.parentRunId().map(RunId::value).orElse(null));
        o.put("admissionKey", e.admissionKey());
        o.put("createdBy", e.createdBy());
      }
      case JournalEntry.RunCancelRequested e -> o.put("reason", e.reason());
      case JournalEntry.StepAttemptStarted e -> {
        o.put("stepId", e.stepId());
        o.put("attempt", e.attempt());
        o.put("stepKind", e.stepKind().wire());
        o.put("idempotencyKey", e.idempotencyKey());
        o.put("leaseId", e.leaseId());
        o.put("leaseDeadline", e.leaseDeadline().toString());
        o.put("workerId", e.workerId().value());
      }
      case JournalEntry.StepCompleted e -> {
        o.put("stepId", e.stepId());
        o.put("attempt", e.attempt());
        o.put("reason", e.reason().wire());
        o.put("disposition", e.disposition().wire());
        o.set("output", e.output().orElse(null));
        ArrayNode effects = o.putArray("effects");
        e.effects()
            .forEach(
                ef ->
                    effects
                        .addObject()
                        .put("surfacePath", ef.surfacePath())
                        .put("idempotencyKey", ef.idempotencyKey()));
        o.set("trajectoryTail", e.trajectoryTail().orElse(null));
        o.put("nextAttemptAt", e.nextAttemptAt().map(Instant::toString).orElse(null));
      }
      case JournalEntry.EffectRecorded e -> {
        o.put("stepId", e.stepId());
        o.put("attempt", e.attempt());
        o.put("surfacePath", e.surfacePath());
        o.put("idempotencyKey", e.idempotencyKey());
        o.put("takenOver", e.takenOver());
      }
      case JournalEntry.EffectConfirmed e -> {
        o.put("stepId", e.stepId());
        o.put("attempt", e.attempt());
        o.put("surfacePath", e.surfacePath());
        o.put("idempotencyKey", e.idempotencyKey());
        o.set("output", e.output().orElse(null));
      }
      case JournalEntry.RunCompleted e -> {
        o.put("reason", e.reason().wire());
        o.put("failedStepId", e.failedStepId().orElse(null));
      }
      case JournalEntry.RunResumed e -> o.put("by", e.by());
      case JournalEntry.StepResolved e -> {
        o.put("stepId", e.stepId());
        o.put("performed", e.performed());
        o.set("output", e.output().orElse(null));
        o.put("by", e.by());
      }
    }
    return o;
  }

  /** One human line for a journal entry (progress of run, watch and the timeline of show). */
  static String line(JournalRecord rec) {
    String text =
        switch (rec.entry()) {
          case JournalEntry.RunSpawned e ->
              "run started"
                  + e.parentRunId().map(p -> " (child of " + p.value() + ")").orElse("")
                  + " by "
                  + e.createdBy();
          case JournalEntry.RunCancelRequested e -> "cancel requested: " + e.reason();
          case JournalEntry.StepAttemptStarted e ->
              "step "
                  + e.stepId()
                  + " started (attempt "
                  + e.attempt()
                  + ", worker "
                  + e.workerId().value()
                  + ", lease "
                  + e.leaseId()
                  + " until "
                  + e.leaseDeadline()
                  + ")";
          case JournalEntry.StepCompleted e -> completedLine(e);
          case JournalEntry.EffectRecorded e ->
              "step "
                  + e.stepId()
                  + " effect recorded "
                  + e.surfacePath()
                  + " key "
                  + shortKey(e.idempotencyKey())
                  + (e.takenOver() ? " (taken over from a dead attempt)" : "");
          case JournalEntry.EffectConfirmed e ->
              "step "
                  + e.stepId()
                  + " effect confirmed "
                  + e.surfacePath()
                  + " key "
                  + shortKey(e.idempotencyKey());
          case JournalEntry.RunCompleted e ->
              "run completed: "
                  + e.reason().wire()
                  + e.failedStepId().map(s -> " (failed step " + s + ")").orElse("");
          case JournalEntry.RunResumed e -> "run resumed by " + e.by();
          case JournalEntry.StepResolved e ->
              "step "
                  + e.stepId()
                  + " resolved by "
                  + e.by()
                  + (e.performed() ? ": performed" : ": not performed, it runs again");
        };
    return rec.at() + "  " + text;
  }

  private static String completedLine(JournalEntry.StepCompleted e) {
    StringBuilder b = new StringBuilder("step ").append(e.stepId());
    switch (e.disposition()) {
      case STEP_DONE ->
          b.append(
              e.reason() == dev.flows.kernel.journal.CompletionReason.SUCCESS
                  ? " completed"
                  : " failed: " + e.reason().wire());
      case RETRY ->
          b.append(" retrying after ")
              .append(e.reason().wire())
              .append(e.nextAttemptAt().map(t -> " at " + t).orElse(""));
      case PARK -> b.append(" parked: ").append(e.reason().wire());
    }
    b.append(" (attempt ").append(e.attempt()).append(')');
    e.output()
        .filter(RunView::isReceipt)
        .ifPresent(r -> b.append("; receipt ").append(receiptText(r)));
    e.trajectoryTail()
        .map(t -> t.has("diagnostic") ? t.get("diagnostic") : t)
        .ifPresent(d -> b.append("; diagnostic ").append(Database.oneLine(clip(d.toString()))));
    return b.toString();
  }

  static String receiptText(JsonNode receipt) {
    return "mcp "
        + receipt.path("server").asText()
        + "/"
        + receipt.path("tool").asText()
        + " key "
        + shortKey(receipt.path("idempotencyKey").asText())
        + " output "
        + clip(receipt.path("output").toString());
  }

  private static final int CLIP = 200;
  private static final int SHORT_KEY = 12;

  static String clip(String s) {
    return s.length() <= CLIP ? s : s.substring(0, CLIP) + "…";
  }

  static String shortKey(String key) {
    return key.length() <= SHORT_KEY ? key : key.substring(0, SHORT_KEY) + "…";
  }

  /** The human form of {@link #tree}: a header, steps with attempts and effects, the timeline. */
  static void print(PrintStream p, JsonNode run, String indent) {
    p.println(
        indent
            + "run "
            + run.path("runId").asText()
            + "  "
            + run.path("name").asText()
            + "  "
            + run.path("status").asText()
            + (run.path("completionReason").isTextual()
                ? " (" + run.path("completionReason").asText() + ")"
                : "")
            + "  created "
            + run.path("createdAt").asText()
            + (run.path("queue").asText("default").equals("default")
                ? ""
                : "  queue " + run.path("queue").asText()));
    if (run.path("rerunOf").isTextual()) {
      p.println(indent + "  rerun of " + run.get("rerunOf").asText());
    }
    if (!run.path("reruns").isEmpty()) {
      List<String> ids = new java.util.ArrayList<>();
      run.get("reruns").forEach(x -> ids.add(x.asText()));
      p.println(indent + "  rerun as " + String.join(", ", ids));
    }
    if (run.path("waitingReason").isTextual()) {
      String reason = run.path("waitingReason").asText();
      p.println(
          indent
              + "  waiting: "
              + reason
              + (reason.equals(dev.flows.sdk.runtime.FlowsEngine.UNACCEPTED_SOURCE)
                  ? " (start `flows worker --flows DIR` where DIR holds the flow file)"
                  : ""));
    }
    for (JsonNode s : run.path("steps")) {
      p.println(
          indent
              + "  step "
              + s.path("stepId").asText()
              + " ["
              + s.path("kind").asText()
              + "] "
              + s.path("status").asText()
              + ", "
              + s.path("attemptCount").asInt()
              + " attempt(s)"
              + (s.path("lastReason").isTextual()
                  ? ", last " + s.path("lastReason").asText()
                  : ""));
      if (s.has("waitsFor")) {
        p.println(indent + "    waits for " + BodyWait.text(s.get("waitsFor")));
      }
      if (s.has("policy")) {
        p.println(indent + "    policy: " + CallPolicyView.text(s.get("policy")));
      }
      for (JsonNode a : s.path("attempts")) {
        p.println(
            indent
                + "    attempt "
                + a.path("attempt").asInt()
                + ": worker "
                + a.path("workerId").asText("?")
                + ", lease "
                + a.path("leaseId").asText("?")
                + " until "
                + a.path("leaseDeadline").asText("?")
                + (a.has("reason")
                    ? " -> " + a.path("reason").asText() + " / " + a.path("disposition").asText()
                    : " (open)"));
        if (a.has("diagnostic")) {
          p.println(
              indent
                  + "      diagnostic "
                  + Database.oneLine(clip(a.get("diagnostic").toString())));
        }
      }
      for (JsonNode e : s.path("effects")) {
        p.println(
            indent
                + "    effect "
                + e.path("surfacePath").asText()
                + " key "
                + shortKey(e.path("idempotencyKey").asText())
                + (e.path("confirmed").asBoolean() ? " confirmed" : " recorded, not confirmed"));
        CallPolicyView.memoText(e.path("output")).ifPresent(m -> p.println(indent + "      " + m));
      }
      if (s.has("resolveCommand")) {
        p.println(indent + "    to resolve: " + s.get("resolveCommand").asText());
        p.println(indent + "      (" + resolveHelp(s.get("resolveCommand").asText()) + ")");
      }
      if (s.has("receipt")) {
        p.println(indent + "    receipt " + receiptText(s.get("receipt")));
      } else if (!s.path("output").isMissingNode() && !s.path("output").isNull()) {
        p.println(indent + "    output " + clip(s.get("output").toString()));
      }
    }
    p.println(indent + "  timeline:");
    for (JsonNode e : run.path("timeline")) {
      p.println(
          indent
              + "    #"
              + e.path("seq").asLong()
              + " "
              + e.path("at").asText()
              + " "
              + e.path("type").asText()
              + timelineDetail(e));
    }
    for (JsonNode c : run.path("children")) {
      print(p, c, indent + "  ");
    }
  }

  private static String timelineDetail(JsonNode e) {
    StringBuilder b = new StringBuilder();
    for (String f : List.of("stepId", "attempt", "reason", "disposition", "surfacePath", "by")) {
      if (e.hasNonNull(f)) {
        b.append(' ').append(f).append('=').append(e.get(f).asText());
      }
    }
    return b.toString();
  }
}
