package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.ToolApproval;
import java.io.PrintStream;
import java.util.List;

/**
 * A run as people read it: the human form of {@link RunJson#tree} (a header, steps with attempts
 * and effects, the timeline), receipts and failures in one line. Shared by {@code runs show},
 * {@code runs watch} and {@code run}; {@link ProgressLines} has the line of each journal entry.
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

  /** The receipt in one line, its payload folded ({@link Payloads#oneLine}). */
  static String receiptText(JsonNode receipt) {
    return receiptText(receipt, false);
  }

  /** The receipt in one line: the call, its key, and what the tool answered as JSON. */
  static String receiptText(JsonNode receipt, boolean full) {
    return "mcp "
        + receipt.path("server").asText()
        + "/"
        + receipt.path("tool").asText()
        + " key "
        + shortKey(receipt.path("idempotencyKey").asText())
        + " output "
        + Payloads.oneLine(Payloads.readable(receipt.path("output")), full);
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
   * The human form of {@link RunJson#tree}: a header, steps (named by their label, with the status
   * people read) with attempts and effects, the timeline, then the children; payloads folded unless
   * {@code full}.
   */
  static void print(PrintStream p, JsonNode run, String indent, boolean full) {
    header(p, run, indent);
    for (JsonNode s : run.path("steps")) {
      step(p, s, run.path("runId").asText(), indent + "  ", full);
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
      print(p, c, indent + "  ", full);
    }
  }

  private static void header(PrintStream p, JsonNode run, String indent) {
    p.println(
        indent
            + "run "
            + run.path("runId").asText()
            + "  "
            + run.path("label").asText(run.path("name").asText())
            + "  "
            + run.path("displayStatus").asText(run.path("status").asText())
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
    RunUsage.text("usage", run.path("usage")).ifPresent(l -> p.println(indent + "  " + l));
    RunUsage.budgetText(run).ifPresent(l -> p.println(indent + "  " + l));
    if (run.has("treeUsage")) {
      RunUsage.text("tree usage", run.get("treeUsage"))
          .ifPresent(l -> p.println(indent + "  " + l));
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
  }

  private static void step(PrintStream p, JsonNode s, String runId, String indent, boolean full) {
    boolean waiting = s.has("waitingFor");
    p.println(
        indent
            + "step "
            + s.path("label").asText(s.path("stepId").asText())
            + ": "
            + s.path("displayStatus").asText(s.path("status").asText())
            + ", "
            + s.path("attemptCount").asInt()
            + " attempt(s)"
            + (s.path("lastReason").isTextual() && !waiting
                ? ", last " + s.path("lastReason").asText()
                : ""));
    if (s.has("waitsFor")) {
      p.println(indent + "  waits for " + BodyWait.text(s.get("waitsFor"), runId));
    }
    if (s.has("policy")) {
      p.println(indent + "  policy: " + CallPolicyView.text(s.get("policy")));
    }
    if (s.has("task")) {
      p.println(indent + "  " + taskText(s.get("task")));
    }
    attempts(p, s, indent + "  ", full);
    for (JsonNode e : s.path("effects")) {
      p.println(
          indent
              + "  effect "
              + e.path("surfacePath").asText()
              + " key "
              + shortKey(e.path("idempotencyKey").asText())
              + (e.path("confirmed").asBoolean() ? " confirmed" : " recorded, not confirmed"));
      CallPolicyView.memoText(e.path("output")).ifPresent(m -> p.println(indent + "    " + m));
    }
    operatorAction(p, s, indent + "  ");
    if (s.has("receipt")) {
      JsonNode r = s.get("receipt");
      payload(
          p,
          indent + "  ",
          "receipt mcp "
              + r.path("server").asText()
              + "/"
              + r.path("tool").asText()
              + " key "
              + shortKey(r.path("idempotencyKey").asText())
              + " output",
          Payloads.readable(r.path("output")),
          full);
    } else if (!s.path("output").isMissingNode() && !s.path("output").isNull()) {
      payload(p, indent + "  ", "output", s.get("output"), full);
    }
  }

  private static String taskText(JsonNode t) {
    return "task "
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
            : "");
  }

  private static void attempts(PrintStream p, JsonNode s, String indent, boolean full) {
    for (JsonNode a : s.path("attempts")) {
      p.println(
          indent
              + "attempt "
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
                + "  diagnostic "
                + Database.oneLine(Payloads.oneLine(a.get("diagnostic"), full)));
      }
    }
  }

  /** What an operator does about a parked step: the input it asks for, or how to resolve it. */
  private static void operatorAction(PrintStream p, JsonNode s, String indent) {
    if (s.has("inputRequest")) {
      s.get("inputRequest")
          .path("requests")
          .fields()
          .forEachRemaining(
              r -> {
                JsonNode params = r.getValue().path("params");
                if (ToolApproval.METHOD.equals(r.getValue().path("method").asText())) {
                  p.println(
                      indent
                          + "asks for approval: "
                          + params.path("server").asText()
                          + "/"
                          + params.path("tool").asText()
                          + " with "
                          + params.path("arguments"));
                  return;
                }
                p.println(
                    indent
                        + "asks for input "
                        + r.getKey()
                        + ": "
                        + params.path("message").asText()
                        + (params.has("url")
                            ? " (visit " + params.path("url").asText() + ")"
                            : params.has("requestedSchema")
                                ? " (schema " + params.get("requestedSchema") + ")"
                                : " (" + r.getValue().path("method").asText() + ")"));
              });
      p.println(indent + "to answer: " + s.get("resolveCommand").asText());
    } else if (s.has("resolveCommand")) {
      p.println(indent + "to resolve: " + s.get("resolveCommand").asText());
      p.println(indent + "  (" + resolveHelp(s.get("resolveCommand").asText()) + ")");
    }
  }

  /**
   * {@code head} and the payload: on the same line when it fits, else pretty-printed below it,
   * folded by whole lines unless {@code full}.
   */
  private static void payload(
      PrintStream p, String indent, String head, JsonNode node, boolean full) {
    String line = node.toString();
    if (line.length() <= Payloads.LINE_LIMIT) {
      p.println(indent + head + " " + line);
      return;
    }
    p.println(indent + head + ":");
    Payloads.lines(node, full).forEach(l -> p.println(indent + "  " + l));
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
