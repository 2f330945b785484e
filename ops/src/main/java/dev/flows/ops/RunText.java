package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import java.io.PrintStream;
import java.util.List;

/**
 * A run as people read it: the human form of {@link RunJson#tree} (a header, steps with attempts
 * and effects, the timeline) and one progress line per journal entry. Shared by {@code runs show},
 * {@code runs watch} and {@code run}.
 */
final class RunText {
  private RunText() {}

  /** What each placeholder of a resolve command stands for, one line. */
  static String resolveHelp(String command) {
    return command.contains("RESULT_JSON")
        ? "RESULT_JSON is the tool's result as the server reports it,"
            + " {\"content\":[…],\"structuredContent\":{…},\"isError\":false}, or its"
            + " structured content as a bare JSON object; --not-performed sends the call again"
        : "OUTPUT_JSON is the step's output; --not-performed runs the step again";
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
          case JournalEntry.StepAnswered e ->
              "step "
                  + e.stepId()
                  + " answered by "
                  + e.by()
                  + ": "
                  + clip(e.responses().toString())
                  + "; the call is sent again";
          case JournalEntry.EffectTask e ->
              "step "
                  + e.stepId()
                  + " task "
                  + e.task().taskId()
                  + " "
                  + e.task().status()
                  + e.task().statusMessage().map(m -> ": " + Database.oneLine(clip(m))).orElse("");
          case JournalEntry.EffectTaskCancel e ->
              "step "
                  + e.stepId()
                  + " task "
                  + e.taskId()
                  + " cancel sent by "
                  + e.by()
                  + ": "
                  + e.reason();
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
        .filter(RunJson::isReceipt)
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

  /**
   * The human form of {@link RunJson#tree}: a header, steps with attempts and effects, the
   * timeline.
   */
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
        p.println(
            indent
                + "    waits for "
                + BodyWait.text(s.get("waitsFor"), run.path("runId").asText()));
      }
      if (s.has("policy")) {
        p.println(indent + "    policy: " + CallPolicyView.text(s.get("policy")));
      }
      if (s.has("task")) {
        JsonNode t = s.get("task");
        p.println(
            indent
                + "    task "
                + t.path("taskId").asText()
                + " "
                + t.path("status").asText()
                + (t.hasNonNull("statusMessage")
                    ? ": " + Database.oneLine(clip(t.get("statusMessage").asText()))
                    : "")
                + " (since "
                + t.path("updatedAt").asText()
                + ")"
                + (t.has("cancelSentAt")
                    ? "; cancel sent "
                        + t.path("cancelSentAt").asText()
                        + ": "
                        + t.path("cancelReason").asText()
                    : ""));
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
      if (s.has("inputRequest")) {
        JsonNode ir = s.get("inputRequest");
        ir.path("requests")
            .fields()
            .forEachRemaining(
                r -> {
                  JsonNode params = r.getValue().path("params");
                  p.println(
                      indent
                          + "    asks for input "
                          + r.getKey()
                          + ": "
                          + params.path("message").asText()
                          + (params.has("url")
                              ? " (visit " + params.path("url").asText() + ")"
                              : params.has("requestedSchema")
                                  ? " (schema " + params.get("requestedSchema") + ")"
                                  : " (" + r.getValue().path("method").asText() + ")"));
                });
        p.println(indent + "    to answer: " + s.get("resolveCommand").asText());
      } else if (s.has("resolveCommand")) {
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
