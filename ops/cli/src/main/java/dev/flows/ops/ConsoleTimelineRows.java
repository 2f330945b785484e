package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.MemoVerb;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The items of a run's timeline, read from the run's JSON ({@link RunJson#tree}: attempts, effects,
 * receipts, memos, tasks, signals, children): each attempt with its worker and lease, each MCP
 * call, each memo of a body, each wait (timer, signal, input, task) from the memo that started it
 * to the memo of its outcome, each child run with its own items; ordered by start.
 */
final class ConsoleTimelineRows {
  private static final Pattern MEMO = Pattern.compile("/memo/(\\d+)");
  private static final Pattern MCP = Pattern.compile("/mcp/([^/]+)/(.+)");

  private ConsoleTimelineRows() {}

  /**
   * One item: {@code kind} (attempt, call, memo, timer, signal, input, task, child, delivery),
   * {@code marks} (retry, park, fail, lease-expired, open, ok), {@code detail} what selecting it
   * shows, {@code child} the nested run of a child item.
   */
  record Row(
      String kind,
      String label,
      Instant start,
      Optional<Instant> end,
      List<String> marks,
      ObjectNode detail,
      Optional<JsonNode> child) {}

  /** The run's items, ordered by start (ties keep the journal's order). */
  static List<Row> of(JsonNode run) {
    List<Row> rows = new ArrayList<>();
    Map<String, JsonNode> children = new HashMap<>();
    run.path("children").forEach(c -> children.put(c.path("runId").asText(), c));
    for (JsonNode s : run.path("steps")) {
      String step = s.path("label").asText(s.path("stepId").asText());
      s.path("attempts").forEach(a -> rows.add(attempt(step, a)));
      effects(rows, step, s, children);
      if (s.has("task")) {
        rows.add(task(step, s.get("task")));
      }
      if (s.has("inputRequest")) {
        inputWait(s).ifPresent(rows::add);
      }
    }
    run.path("signals").forEach(g -> rows.add(signal(g)));
    for (JsonNode c : children.values()) {
      rows.add(child("child run " + c.path("name").asText(), time(c, "createdAt"), c, null));
    }
    rows.sort(Comparator.comparing(Row::start));
    return rows;
  }

  private static Row attempt(String step, JsonNode a) {
    List<String> marks = new ArrayList<>();
    // A body that suspends gives its attempt back to wait: a pause, not a retry.
    String disposition =
        a.path("reason").asText().equals("suspended")
            ? "suspended"
            : a.path("disposition").asText("");
    switch (disposition) {
      case "suspended" -> marks.add("suspended");
      case "retry" -> marks.add("retry");
      case "park" -> marks.add("park");
      case "fail" -> marks.add("fail");
      case "" -> marks.add("open");
      default -> marks.add("ok");
    }
    if (a.path("reason").asText().equals("lease_expired")) {
      marks.add("lease-expired");
    }
    String label =
        step
            + " · attempt "
            + a.path("attempt").asInt()
            + " · "
            + a.path("workerId").asText("?")
            + (a.hasNonNull("reason") ? " · " + a.get("reason").asText() : "");
    return new Row(
        "attempt",
        label,
        time(a, "startedAt"),
        optTime(a, "endedAt"),
        marks,
        a.deepCopy(),
        Optional.empty());
  }

  /** Effects of one step: MCP calls, memos, waits from a memo to its outcome, child runs. */
  private static void effects(
      List<Row> rows, String step, JsonNode s, Map<String, JsonNode> children) {
    JsonNode effects = s.path("effects");
    Map<String, JsonNode> byPath = new HashMap<>();
    effects.forEach(e -> byPath.put(e.path("surfacePath").asText(), e));
    for (JsonNode e : effects) {
      String path = e.path("surfacePath").asText();
      Matcher mcp = MCP.matcher(path);
      Matcher memo = MEMO.matcher(path);
      Instant start = optTime(e, "recordedAt").orElseGet(() -> time(e, "confirmedAt"));
      Optional<Instant> end = optTime(e, "confirmedAt");
      ObjectNode detail = e.deepCopy();
      if (mcp.matches()) {
        String label = "call " + mcp.group(1) + " · " + mcp.group(2);
        if (!e.hasNonNull("output") && s.has("receipt")) {
          // Resolved by an operator: the step's output is the receipt.
          detail.set("receipt", s.get("receipt"));
        }
        rows.add(row("call", label, start, end, e, detail));
      } else if (memo.matches()) {
        JsonNode outcome = byPath.get(path + "/outcome");
        rows.add(memo(step, memo.group(1), start, e, outcome, children));
      } else if (!path.matches("/memo/\\d+/.*")) {
        rows.add(row("memo", step + " · " + path, start, end, e, detail));
      }
    }
  }

  private static Row memo(
      String step,
      String pos,
      Instant start,
      JsonNode e,
      JsonNode outcome,
      Map<String, JsonNode> children) {
    JsonNode m = e.path("output");
    Optional<Instant> done = outcome == null ? Optional.empty() : optTime(outcome, "confirmedAt");
    ObjectNode detail = e.deepCopy();
    if (outcome != null) {
      detail.set("outcome", outcome.path("output"));
    }
    Optional<MemoVerb> verb = MemoVerb.of(m);
    return switch (verb.orElse(MemoVerb.STEP)) {
      case SLEEP -> wait("timer", "timer until " + m.path("until").asText(), start, done, detail);
      case AWAIT_SIGNAL ->
          wait("signal", "waits for signal " + m.path("signal").asText(), start, done, detail);
      case ON_INPUT -> wait("input", "waits for input", start, done, detail);
      case FLOW -> {
        JsonNode c = children.remove(m.path("child").asText());
        String label = "child flow " + m.path("flow").asText() + " · " + m.path("child").asText();
        yield c == null
            ? wait("child", label, start, done, detail)
            : child(label, start, c, detail);
      }
      case STEP, ANY, NOW, RANDOM_UUID, RANDOM, LLM, PATCHED -> {
        String name = m.path("name").asText(verb.map(MemoVerb::wire).orElse("memo"));
        String label = step + " · memo " + pos + " · " + name;
        yield row("memo", label, start, optTime(e, "confirmedAt"), e, detail);
      }
    };
  }

  private static Row wait(
      String kind, String label, Instant start, Optional<Instant> end, ObjectNode detail) {
    return new Row(
        kind,
        label,
        start,
        end,
        List.of(end.isPresent() ? "ok" : "open"),
        detail,
        Optional.empty());
  }

  private static Row child(String label, Instant start, JsonNode c, ObjectNode memo) {
    ObjectNode detail = Session.JSON.createObjectNode();
    for (String f : List.of("runId", "name", "status", "createdAt", "completedAt")) {
      detail.set(f, c.get(f));
    }
    if (memo != null) {
      detail.set("memo", memo);
    }
    String status = c.path("status").asText();
    Optional<Instant> end = optTime(c, "completedAt");
    List<String> marks =
        switch (status) {
          case "failed" -> List.of("fail");
          case "parked" -> List.of("park");
          case "succeeded" -> List.of("ok");
          default -> end.isPresent() ? List.of("ok") : List.of("open");
        };
    return new Row("child", label + " · " + status, start, end, marks, detail, Optional.of(c));
  }

  private static Row task(String step, JsonNode t) {
    String label =
        step + " · task " + t.path("taskId").asText() + " · " + t.path("status").asText();
    Optional<Instant> end =
        List.of("completed", "failed", "cancelled").contains(t.path("status").asText())
            ? optTime(t, "updatedAt")
            : Optional.empty();
    return wait("task", label, time(t, "createdAt"), end, t.deepCopy());
  }

  /** A call parked for input waits from its park to now (an answer readies the step). */
  private static Optional<Row> inputWait(JsonNode s) {
    JsonNode last = null;
    for (JsonNode a : s.path("attempts")) {
      last = a;
    }
    if (last == null || !last.hasNonNull("endedAt")) {
      return Optional.empty();
    }
    JsonNode req = s.get("inputRequest");
    String label =
        "waits for input · " + req.path("server").asText() + " · " + req.path("tool").asText();
    return Optional.of(
        new Row(
            "input",
            label,
            time(last, "endedAt"),
            Optional.empty(),
            List.of("open", "park"),
            req.deepCopy(),
            Optional.empty()));
  }

  private static Row signal(JsonNode g) {
    String label = "signal " + g.path("name").asText() + " #" + g.path("seq").asLong() + " sent";
    return wait("delivery", label, time(g, "sentAt"), optTime(g, "deliveredAt"), g.deepCopy());
  }

  private static Row row(
      String kind,
      String label,
      Instant start,
      Optional<Instant> end,
      JsonNode e,
      ObjectNode detail) {
    boolean confirmed = e.path("confirmed").asBoolean();
    return new Row(
        kind, label, start, end, List.of(confirmed ? "ok" : "open"), detail, Optional.empty());
  }

  static Instant time(JsonNode o, String field) {
    return optTime(o, field).orElse(Instant.EPOCH);
  }

  static Optional<Instant> optTime(JsonNode o, String field) {
    if (!o.hasNonNull(field)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(o.get(field).asText()));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
