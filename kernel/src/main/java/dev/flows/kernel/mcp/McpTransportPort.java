package dev.flows.kernel.mcp;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One connection to one MCP server, whatever carries it (stdio or Streamable HTTP). Implementations
 * keep the {@link ConnectionState} machine, reconnect on loss, and keep the server's tools in a
 * {@link ToolRegistry} exactly while connected.
 */
public interface McpTransportPort extends AutoCloseable {

  /** The configured server name (the registry prefix). */
  String server();

  /**
   * Connects and lists tools. Completes when connected, or exceptionally with an {@link
   * McpException}. Cancelling the future, like {@link #stop()}, abandons the attempt and releases
   * its process or sockets.
   */
  CompletableFuture<Void> connect();

  /** Current state. */
  ConnectionState state();

  /** Tools registered for this server now (empty unless connected). */
  List<ToolDescriptor> tools();

  /**
   * Calls {@code tool}. Completes with the result (a tool-reported error is a result) or
   * exceptionally with an {@link McpException}. Cancelling the future abandons the call.
   */
  default CompletableFuture<ToolCallResult> callTool(String tool, Map<String, Object> arguments) {
    return callTool(tool, arguments, Map.of());
  }

  /**
   * As {@link #callTool(String, Map)}, sending {@code meta} as the request's {@code _meta} (where
   * flows puts the idempotency key, so servers that honour it can dedupe).
   */
  CompletableFuture<ToolCallResult> callTool(
      String tool, Map<String, Object> arguments, Map<String, Object> meta);

  /**
   * As {@link #callTool(String, Map, Map)}; {@code reissue} says whether the call may be sent again
   * when its response is lost on the wire (2026-07-28: a broken stream loses the request), which
   * the caller decides by the same rule as after a crash. The re-sent request has a new id and the
   * same {@code meta}. Implementations that never lose responses that way ignore it.
   */
  default CompletableFuture<ToolCallResult> callTool(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, boolean reissue) {
    return callTool(tool, arguments, meta);
  }

  /**
   * Calls {@code tool} as {@code options} say: a result, a task the server created, or (with {@code
   * durableInput}) the server's request for input. Completes exceptionally with an {@link
   * McpException}. With {@link CallOptions#plain()} options this is {@link #callTool(String, Map,
   * Map, boolean)}, and so is a call asking only for durable input on connections without input
   * support; they refuse anything else with {@code mcp_tool_error}.
   */
  default CompletableFuture<ToolCallOutcome> call(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, CallOptions options) {
    if (options.tasks() == CallOptions.TaskMode.FORBIDDEN && options.answer().isEmpty()) {
      // Durable input only changes what a server that asks for input gets back; a connection
      // that never returns input_required makes the plain call.
      return callTool(tool, arguments, meta, options.reissue())
          .thenApply(ToolCallOutcome.Completed::new);
    }
    return unsupported("tasks and durable input");
  }

  /**
   * {@code tasks/get}: the task's state now; completed carries the call's result, failed its error,
   * input_required the server's requests. {@code tool} is the tool the task was created for.
   */
  default CompletableFuture<McpTask> getTask(String tool, String taskId) {
    return unsupported("tasks/get");
  }

  /**
   * {@code tasks/update}: answers an input_required task's requests (each an {@code ElicitResult},
   * see {@link InputResponses}). Completes when the server acknowledged them.
   */
  default CompletableFuture<Void> updateTask(
      String taskId, Map<String, com.fasterxml.jackson.databind.JsonNode> inputResponses) {
    return unsupported("tasks/update");
  }

  /**
   * {@code tasks/cancel}: asks the server to cancel the task; completes when it acknowledged (the
   * task may still end otherwise if it finished first).
   */
  default CompletableFuture<Void> cancelTask(String taskId) {
    return unsupported("tasks/cancel");
  }

  private <T> CompletableFuture<T> unsupported(String what) {
    return CompletableFuture.failedFuture(
        new McpException(
            McpDiagnostic.MCP_TOOL_ERROR,
            server(),
            "this connection does not support " + what,
            "use a connection of the MCP client (dev.flows.mcp.client.McpConnection)"));
  }

  /** The {@code _meta} keys of W3C trace context (SEP-414), set by the caller per call. */
  String TRACEPARENT_META = "traceparent";

  String TRACESTATE_META = "tracestate";

  /** The {@code _meta} key carrying a call's idempotency key. */
  String IDEMPOTENCY_KEY_META = "dev.flows/idempotency-key";

  /**
   * Listens to this server's tools being registered (on connect, reconnect and list_changed) and
   * removed (on disconnect and stop).
   */
  void addToolListener(ToolRegistry.Listener listener);

  /** Listens to every state change; {@code cause} says why when it was a failure. */
  void addStateListener(StateListener listener);

  /**
   * Stops from any state: pending calls fail with {@code mcp_disconnected}, tools are removed, the
   * process or session is ended, and the state becomes closed. Idempotent; blocks at most about
   * twice the configured stop grace.
   */
  void stop();

  @Override
  default void close() {
    stop();
  }

  /** Observer of {@link ConnectionTransition}s. */
  @FunctionalInterface
  interface StateListener {
    void onTransition(ConnectionTransition transition, Optional<McpDiagnostic> cause);
  }
}
