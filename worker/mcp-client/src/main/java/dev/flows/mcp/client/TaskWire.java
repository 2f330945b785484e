package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.mcp.InputRequest;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpTask;
import dev.flows.kernel.mcp.ToolCallResult;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads tasks and input requests off the wire, in both revisions: 2026-07-28 (the tasks extension:
 * {@code ttlMs}, {@code pollIntervalMs}, result or error inlined in {@code tasks/get}) and
 * 2025-11-25 (experimental: {@code ttl}, {@code pollInterval}, the result from {@code
 * tasks/result}).
 */
final class TaskWire {
  /** The extension's identifier in capabilities. */
  static final String EXTENSION = "io.modelcontextprotocol/tasks";

  private TaskWire() {}

  /**
   * A task as the server described it; {@code result} gives the state a completed task carries
   * (2026-07-28 inlines it; 2025-11-25 fetches it with {@code tasks/result}).
   */
  static McpTask task(
      String server, String tool, JsonNode t, String revision, Optional<McpTask.State> settled) {
    boolean modern = McpProtocol.MODERN.equals(revision);
    String status = t.path("status").asText();
    McpTask.State state =
        settled.orElseGet(
            () ->
                switch (status) {
                  case "working" -> new McpTask.State.Working();
                  case "input_required" ->
                      new McpTask.State.InputRequired(inputRequests(t.path("inputRequests")));
                  case "completed" ->
                      new McpTask.State.Completed(
                          McpWire.toResult(
                              server,
                              tool,
                              t.path("result"),
                              t.path("result").path("isError").asBoolean(false),
                              revision,
                              List.of()));
                  case "failed" ->
                      new McpTask.State.Failed(
                          t.path("error").path("code").asInt(0),
                          t.path("error").path("message").asText(t.path("statusMessage").asText()));
                  case "cancelled" -> new McpTask.State.Cancelled();
                  default ->
                      throw new McpException(
                          McpDiagnostic.MCP_TOOL_ERROR,
                          server,
                          "protocol error: task "
                              + t.path("taskId").asText()
                              + " has status \""
                              + status
                              + "\"",
                          "the server's tasks are broken; report it to its authors");
                });
    String id = t.path("taskId").asText("");
    if (id.isEmpty()) {
      throw new McpException(
          McpDiagnostic.MCP_TOOL_ERROR,
          server,
          "protocol error: a task without a taskId",
          "the server's tasks are broken; report it to its authors");
    }
    return new McpTask(
        server,
        tool,
        id,
        state,
        text(t.path("statusMessage")),
        millis(t.path(modern ? "pollIntervalMs" : "pollInterval")),
        millis(t.path(modern ? "ttlMs" : "ttl")),
        revision);
  }

  /** The {@code inputRequests} map: form and URL elicitations understood, others kept raw. */
  static Map<String, InputRequest> inputRequests(JsonNode requests) {
    Map<String, InputRequest> out = new LinkedHashMap<>();
    requests.fields().forEachRemaining(e -> out.put(e.getKey(), InputRequest.of(e.getValue())));
    return out;
  }

  private static Optional<String> text(JsonNode n) {
    return n.isTextual() ? Optional.of(n.asText()) : Optional.empty();
  }

  private static Optional<Duration> millis(JsonNode n) {
    return n.isNumber() && n.asLong() >= 0
        ? Optional.of(Duration.ofMillis(n.asLong()))
        : Optional.empty();
  }

  /** The refusal of a call that must run as a task but cannot, {@code why}. */
  static McpException mustBeTask(String server, String tool, String why) {
    return new McpException(
        McpDiagnostic.MCP_TOOL_ERROR,
        server,
        tool + " must run as a task, but " + why,
        "allow the call without a task, or use a server that supports tasks");
  }

  /** A result answered by the server, as {@link McpWire#toResult} reads it. */
  static ToolCallResult result(
      String server,
      String tool,
      JsonNode r,
      String revision,
      List<ToolCallResult.WireAttempt> attempts) {
    return McpWire.toResult(
        server, tool, r, r.path("isError").asBoolean(false), revision, attempts);
  }
}
