package dev.flows.mcp.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.mcp.McpTransportPort;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The tools and tasks of {@link TaskTestServer}, in either revision. Tasks live in a file (one JSON
 * line per change, the last line of a task wins, forced to disk before the answer that names it),
 * so a server killed mid-task and started again on the same file answers {@code tasks/get} for the
 * same id. A task's progress is computed from its creation time, so nothing runs between polls.
 * Every {@code tools/call}, task creation, {@code tasks/get}, {@code tasks/update}, {@code
 * tasks/result} and {@code tasks/cancel} is appended to the event log as one JSON line, with the
 * call's idempotency key and the server's clock ({@code at}, epoch ms).
 *
 * <p>Tools: {@code slow} ({@code ms}; a task when the client allows one, else it sleeps and
 * answers; {@code pollMs}: the poll interval the task hints, else {@link #POLL_MS}), {@code
 * ask_task} (a task that asks for an approval form after {@code ms} and completes once it is
 * answered with {@code tasks/update}), {@code ask_form} and {@code ask_url} (a plain call answered
 * {@code input_required}, a form with a JSON schema or a URL to visit, completed when re-issued
 * with valid {@code inputResponses} and the {@code requestState} it was given), {@code echo}.
 */
final class TaskBook {
  static final String KEY = McpTransportPort.IDEMPOTENCY_KEY_META;
  static final long POLL_MS = 50;
  static final long TTL_MS = 3_600_000;

  private static final ObjectMapper JSON = Jackson.mapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private final Path state;
  private final Path log;
  private final Map<String, ObjectNode> tasks = new LinkedHashMap<>();

  TaskBook(Path state, Path log) throws IOException {
    this.state = state;
    this.log = log;
    if (Files.exists(state)) {
      for (String line : Files.readAllLines(state)) {
        if (!line.isBlank()) {
          ObjectNode t = (ObjectNode) JSON.readTree(line);
          tasks.put(t.path("taskId").asText(), t);
        }
      }
    }
  }

  /** The tools/list entries: name, input schema, and the 2025-11-25 {@code taskSupport}. */
  static List<ToolDef> tools() {
    return List.of(
        new ToolDef(
            "slow",
            Map.of("ms", Map.of("type", "number"), "pollMs", Map.of("type", "number")),
            List.of("ms"),
            Optional.of("optional")),
        new ToolDef("ask_task", props("ms", "number"), List.of(), Optional.of("required")),
        new ToolDef("ask_form", Map.of(), List.of(), Optional.empty()),
        new ToolDef("ask_url", Map.of(), List.of(), Optional.empty()),
        new ToolDef("echo", props("text", "string"), List.of("text"), Optional.empty()));
  }

  record ToolDef(
      String name,
      Map<String, Object> properties,
      List<String> required,
      Optional<String> taskSupport) {
    Map<String, Object> inputSchema() {
      return Map.of("type", "object", "properties", properties, "required", required);
    }
  }

  private static Map<String, Object> props(String name, String type) {
    return Map.of(name, Map.of("type", type));
  }

  /** What a {@code tools/call} is answered with. */
  sealed interface Answer {
    /** A result object ({@code CallToolResult}, {@code InputRequiredResult} or a task handle). */
    record Result(ObjectNode result) implements Answer {}

    record Error(int code, String message) implements Answer {}
  }

  /**
   * A {@code tools/call}. {@code asTask}: the client allows a task (2026-07-28: declared the
   * extension; 2025-11-25: sent {@code params.task}).
   */
  Answer call(JsonNode params, boolean asTask, String revision) throws IOException {
    String tool = params.path("name").asText();
    JsonNode args = params.path("arguments");
    String key = params.path("_meta").path(KEY).asText("");
    ObjectNode event = event("tools/call").put("tool", tool).put("key", key);
    event.put("asTask", asTask);
    if (params.has("requestState")) {
      event.set("requestState", params.get("requestState"));
    }
    if (params.has("inputResponses")) {
      event.set("inputResponses", params.get("inputResponses"));
    }
    append(log, event);
    return switch (tool) {
      case "slow", "ask_task" -> {
        if (!asTask) {
          if (tool.equals("ask_task")) {
            yield new Answer.Error(-32601, "ask_task runs only as a task");
          }
          sleep(args.path("ms").asLong());
          yield new Answer.Result(text("slow done after " + args.path("ms").asLong() + " ms"));
        }
        yield new Answer.Result(handle(create(tool, key, args), revision));
      }
      case "ask_form" -> form(params);
      case "ask_url" -> url(params);
      case "echo" -> new Answer.Result(text(args.path("text").asText()));
      default -> new Answer.Error(-32602, "unknown tool " + tool);
    };
  }

  private synchronized ObjectNode create(String tool, String key, JsonNode args)
      throws IOException {
    for (ObjectNode t : tasks.values()) {
      if (!key.isEmpty() && key.equals(t.path("key").asText())) {
        // A server that honours idempotency keys answers a repeated call with the same task.
        return t;
      }
    }
    ObjectNode t = F.objectNode();
    t.put("taskId", UUID.randomUUID().toString());
    t.put("tool", tool);
    t.put("key", key);
    t.set("args", args);
    t.put("createdAt", System.currentTimeMillis());
    t.put("cancelled", false);
    save(t);
    append(log, event("task.created").put("taskId", t.path("taskId").asText()).put("key", key));
    return t;
  }

  /** The task's current view, as a 2026-07-28 {@code DetailedTask} or a 2025-11-25 Task. */
  synchronized Optional<ObjectNode> get(String taskId, String revision) throws IOException {
    ObjectNode t = tasks.get(taskId);
    ObjectNode view = t == null ? null : view(t, revision);
    append(
        log,
        event("tasks/get")
            .put("taskId", taskId)
            .put("status", view == null ? "unknown" : view.path("status").asText()));
    return Optional.ofNullable(view);
  }

  /** 2025-11-25 {@code tasks/result} of a terminal task: the call's result or its error. */
  synchronized Optional<Answer> result(String taskId) throws IOException {
    append(log, event("tasks/result").put("taskId", taskId));
    ObjectNode t = tasks.get(taskId);
    if (t == null) {
      return Optional.of(new Answer.Error(-32602, "unknown task " + taskId));
    }
    ObjectNode v = view(t, McpRevision.LEGACY);
    return switch (v.path("status").asText()) {
      case "completed" -> Optional.of(new Answer.Result(completion(t)));
      case "cancelled" -> Optional.of(new Answer.Error(-32800, "the task was cancelled"));
      default -> Optional.empty();
    };
  }

  /** tasks/update: records the answers of the outstanding requests it names. */
  synchronized Optional<Answer> update(String taskId, JsonNode inputResponses) throws IOException {
    append(log, event("tasks/update").put("taskId", taskId).set("inputResponses", inputResponses));
    ObjectNode t = tasks.get(taskId);
    if (t == null) {
      return Optional.of(new Answer.Error(-32602, "unknown task " + taskId));
    }
    JsonNode approval = inputResponses.path("approval");
    if (!approval.isMissingNode() && !t.has("approval")) {
      t.set("approval", approval);
      t.put("answeredAt", System.currentTimeMillis());
      save(t);
    }
    return Optional.empty();
  }

  /** tasks/cancel: a task not yet terminal ends cancelled; the answer is its view. */
  synchronized Answer cancel(String taskId, String revision) throws IOException {
    append(log, event("tasks/cancel").put("taskId", taskId));
    ObjectNode t = tasks.get(taskId);
    if (t == null) {
      return new Answer.Error(-32602, "unknown task " + taskId);
    }
    ObjectNode v = view(t, revision);
    if (!v.path("status").asText().equals("working")
        && !v.path("status").asText().equals("input_required")) {
      return new Answer.Error(-32602, "task " + taskId + " is already " + v.path("status"));
    }
    t.put("cancelled", true);
    t.put("cancelledAt", System.currentTimeMillis());
    save(t);
    return new Answer.Result(view(t, revision));
  }

  /** The answer that creates a task: 2026-07-28 flat with resultType, 2025-11-25 under "task". */
  private synchronized ObjectNode handle(ObjectNode t, String revision) {
    ObjectNode v = view(t, revision);
    if (McpRevision.MODERN.equals(revision)) {
      v.put("resultType", "task");
      return v;
    }
    ObjectNode out = F.objectNode();
    out.set("task", v);
    return out;
  }

  private ObjectNode view(ObjectNode t, String revision) {
    long now = System.currentTimeMillis();
    long created = t.path("createdAt").asLong();
    long ms = t.path("args").path("ms").asLong(0);
    boolean modern = McpRevision.MODERN.equals(revision);
    ObjectNode v = F.objectNode();
    v.put("taskId", t.path("taskId").asText());
    String status;
    String message;
    if (t.path("cancelled").asBoolean()) {
      status = "cancelled";
      message = "cancelled by the client";
    } else if (t.path("tool").asText().equals("slow")) {
      if (now - created >= ms) {
        status = "completed";
        message = "done";
      } else {
        status = "working";
        message =
            (now - created) * 100 / Math.max(ms, 1)
                + "% ("
                + (now - created)
                + " of "
                + ms
                + " ms)";
      }
    } else if (!t.has("approval")) {
      status = now - created >= ms ? "input_required" : "working";
      message = status.equals("working") ? "preparing" : "waiting for approval";
    } else {
      status = "completed";
      message = "answered";
    }
    v.put("status", status);
    v.put("statusMessage", message);
    v.put("createdAt", Instant.ofEpochMilli(created).toString());
    v.put("lastUpdatedAt", Instant.ofEpochMilli(now).toString());
    v.put(modern ? "ttlMs" : "ttl", TTL_MS);
    v.put(
        modern ? "pollIntervalMs" : "pollInterval", t.path("args").path("pollMs").asLong(POLL_MS));
    if (modern && status.equals("completed")) {
      v.set("result", completion(t));
    }
    if (modern && status.equals("input_required")) {
      ObjectNode requests = F.objectNode();
      requests.set(
          "approval",
          elicitForm(
              "Approve the job?",
              schema(
                  F.objectNode().set("approved", F.objectNode().put("type", "boolean")),
                  "approved")));
      v.set("inputRequests", requests);
    }
    return v;
  }

  private static ObjectNode completion(ObjectNode t) {
    if (t.path("tool").asText().equals("slow")) {
      return text("slow done after " + t.path("args").path("ms").asLong() + " ms");
    }
    JsonNode a = t.path("approval");
    return text(
        a.path("action").asText().equals("accept")
            ? "approved=" + a.path("content").path("approved").asBoolean()
            : "not approved: " + a.path("action").asText());
  }

  /** ask_form: a name is asked for; the re-issue must echo the state and answer the form. */
  private static Answer form(JsonNode params) {
    String expected = state("ask_form");
    if (!params.has("inputResponses")) {
      ObjectNode requests = F.objectNode();
      requests.set(
          "name",
          elicitForm(
              "Who is asking?",
              schema(F.objectNode().set("name", F.objectNode().put("type", "string")), "name")));
      return new Answer.Result(inputRequired(requests, expected));
    }
    if (!expected.equals(params.path("requestState").asText())) {
      return new Answer.Error(-32602, "requestState does not match the one sent");
    }
    JsonNode r = params.path("inputResponses").path("name");
    if (!r.path("action").asText().equals("accept")) {
      return new Answer.Result(text("no name given (" + r.path("action").asText() + ")"));
    }
    if (!r.path("content").path("name").isTextual()) {
      return new Answer.Error(-32602, "inputResponses.name.content.name must be a string");
    }
    return new Answer.Result(text("hello " + r.path("content").path("name").asText()));
  }

  /** ask_url: a URL to visit; the re-issue must echo the state and accept. */
  private static Answer url(JsonNode params) {
    String expected = state("ask_url");
    if (!params.has("inputResponses")) {
      ObjectNode requests = F.objectNode();
      ObjectNode p = F.objectNode();
      p.put("mode", "url");
      p.put("message", "Sign in to continue");
      p.put("url", "https://login.example.invalid/authorize?state=" + expected);
      ObjectNode r = F.objectNode().put("method", "elicitation/create");
      r.set("params", p);
      requests.set("login", r);
      return new Answer.Result(inputRequired(requests, expected));
    }
    if (!expected.equals(params.path("requestState").asText())) {
      return new Answer.Error(-32602, "requestState does not match the one sent");
    }
    String action = params.path("inputResponses").path("login").path("action").asText();
    return new Answer.Result(text(action.equals("accept") ? "signed in" : "not signed in"));
  }

  /** Opaque to the client; the server recognises its own. */
  private static String state(String tool) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(
            ("{\"tool\":\"" + tool + "\",\"round\":1}").getBytes(StandardCharsets.UTF_8));
  }

  private static ObjectNode inputRequired(ObjectNode requests, String requestState) {
    ObjectNode out = F.objectNode().put("resultType", "input_required");
    out.set("inputRequests", requests);
    out.put("requestState", requestState);
    return out;
  }

  private static ObjectNode elicitForm(String message, ObjectNode schema) {
    ObjectNode p = F.objectNode().put("mode", "form").put("message", message);
    p.set("requestedSchema", schema);
    ObjectNode r = F.objectNode().put("method", "elicitation/create");
    r.set("params", p);
    return r;
  }

  private static ObjectNode schema(JsonNode properties, String required) {
    ObjectNode s = F.objectNode().put("type", "object");
    s.set("properties", properties);
    s.set("required", F.arrayNode().add(required));
    return s;
  }

  static ObjectNode text(String s) {
    ObjectNode out = F.objectNode();
    ArrayNode content = out.putArray("content");
    content.addObject().put("type", "text").put("text", s);
    out.put("isError", false);
    return out;
  }

  private void save(ObjectNode t) throws IOException {
    tasks.put(t.path("taskId").asText(), t);
    try (FileChannel c =
        FileChannel.open(
            state,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.APPEND)) {
      c.write(
          ByteBuffer.wrap((JSON.writeValueAsString(t) + "\n").getBytes(StandardCharsets.UTF_8)));
      // Durable before the answer that names the task: a restarted server must know it.
      c.force(true);
    }
  }

  private static ObjectNode event(String name) {
    return F.objectNode().put("event", name).put("at", System.currentTimeMillis());
  }

  private static synchronized void append(Path log, JsonNode event) throws IOException {
    Files.writeString(
        log,
        JSON.writeValueAsString(event) + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The revisions this server speaks. */
  static final class McpRevision {
    static final String MODERN = "2026-07-28";
    static final String LEGACY = "2025-11-25";

    private McpRevision() {}
  }
}
