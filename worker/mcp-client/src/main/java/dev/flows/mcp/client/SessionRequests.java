package dev.flows.mcp.client;

import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpTask;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The requests an {@link McpConnection} makes on its current session, and the ones still in flight
 * so a lost or stopped connection can fail them. Kept apart from the connection so its state
 * machine reads on its own; the connection hands over its session only while connected.
 */
final class SessionRequests {
  private final String server;
  private final ToolRegistry registry;

  /**
   * The session of a connected connection; throws {@code mcp_disconnected} naming what could not be
   * done otherwise.
   */
  private final Function<String, ProtocolSession> current;

  private final Set<CompletableFuture<?>> pending =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  SessionRequests(String server, ToolRegistry registry, Function<String, ProtocolSession> current) {
    this.server = server;
    this.registry = registry;
    this.current = current;
  }

  CompletableFuture<ToolCallResult> callTool(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, boolean reissue) {
    return onSession(
        "call " + tool, Optional.of(tool), s -> s.call(tool, arguments, meta, reissue));
  }

  CompletableFuture<ToolCallOutcome> call(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, CallOptions options) {
    if (options.plain()) {
      return McpWire.mapping(
          callTool(tool, arguments, meta, options.reissue()), ToolCallOutcome.Completed::new);
    }
    return onSession(
        "call " + tool, Optional.of(tool), s -> s.outcome(tool, arguments, meta, options));
  }

  CompletableFuture<McpTask> getTask(String tool, String taskId) {
    return onSession("send tasks/get " + taskId, Optional.empty(), s -> s.getTask(tool, taskId));
  }

  CompletableFuture<Void> updateTask(
      String taskId, Map<String, com.fasterxml.jackson.databind.JsonNode> inputResponses) {
    return onSession(
        "send tasks/update " + taskId, Optional.empty(), s -> s.updateTask(taskId, inputResponses));
  }

  CompletableFuture<Void> cancelTask(String taskId) {
    return onSession("send tasks/cancel " + taskId, Optional.empty(), s -> s.cancelTask(taskId));
  }

  /**
   * Runs {@code request} on the current session: refused unless connected (and, for a call, unless
   * {@code tool} is registered), failed {@code mcp_disconnected} when the connection is lost or
   * stopped meanwhile, cancelled on the wire when the caller gives up (cancels the future or times
   * it out).
   */
  <T> CompletableFuture<T> onSession(
      String what,
      Optional<String> tool,
      java.util.function.Function<ProtocolSession, CompletableFuture<T>> request) {
    ProtocolSession s;
    try {
      s = current.apply(what);
    } catch (McpException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (tool.isPresent() && registry.find(server, tool.get()).isEmpty()) {
      return CompletableFuture.failedFuture(
          new McpException(
              McpDiagnostic.MCP_UNKNOWN_TOOL,
              server,
              "no tool " + tool.get() + " on this server",
              "list the server's tools; names are case-sensitive"));
    }
    CompletableFuture<T> out = new CompletableFuture<>();
    pending.add(out);
    CompletableFuture<T> sent;
    try {
      sent = request.apply(s);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> call = sent;
    call.whenComplete(
        (r, e) -> {
          if (e == null) {
            out.complete(r);
            return;
          }
          Throwable x =
              e instanceof java.util.concurrent.CompletionException ce ? ce.getCause() : e;
          out.completeExceptionally(
              x instanceof McpException ? x : McpFailures.call(server, what, x));
        });
    out.whenComplete(
        (r, e) -> {
          pending.remove(out);
          if (out.isCancelled() || e instanceof java.util.concurrent.TimeoutException) {
            call.cancel(true);
          }
        });
    return out;
  }

  void failPending(McpException why) {
    for (CompletableFuture<?> f : List.copyOf(pending)) {
      f.completeExceptionally(why);
    }
  }
}
