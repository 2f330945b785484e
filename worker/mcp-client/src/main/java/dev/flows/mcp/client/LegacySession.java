package dev.flows.mcp.client;

import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpTask;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolDescriptor;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/** A 2025-revision session: the SDK's session client over one of our transports. */
final class LegacySession implements ProtocolSession {
  private static final Logger LOG = LoggerFactory.getLogger(LegacySession.class);

  /** The 2025 revision with (experimental) tasks. */
  private static final String TASKS_REVISION = "2025-11-25";

  private static final McpSchema.Implementation CLIENT_INFO =
      new McpSchema.Implementation("flows", "0.1.0");

  private final String server;
  private final McpClientConfig limits;
  private final McpAsyncClient client;
  private final McpClientTransport transport;
  private final LegacyTasks tasks;
  private final LiveElicitations live;
  private volatile String protocolVersion = "";

  /**
   * {@code elicitationDefaults}: declare elicitation and accept each form with its defaults; {@code
   * liveInput}: declare form and URL elicitation and route each to the call in flight ({@link
   * LiveElicitations}); {@code toolsChanged} runs on {@code notifications/tools/list_changed}.
   */
  LegacySession(
      String server,
      McpClientConfig limits,
      McpClientTransport transport,
      boolean elicitationDefaults,
      boolean liveInput,
      Runnable toolsChanged) {
    this.server = server;
    this.limits = limits;
    this.transport = transport;
    this.tasks = new LegacyTasks(transport);
    this.live = new LiveElicitations(server, elicitationDefaults);
    McpClient.AsyncSpec spec =
        McpClient.async(tasks)
            .clientInfo(CLIENT_INFO)
            // The SDK has one timeout for every request; ours are per kind and enforced here.
            .requestTimeout(
                limits.callTimeout().compareTo(limits.listTimeout()) > 0
                    ? limits.callTimeout()
                    : limits.listTimeout())
            .initializationTimeout(limits.connectTimeout())
            .toolsChangeConsumer(tools -> Mono.fromRunnable(toolsChanged));
    if (liveInput) {
      spec.capabilities(McpSchema.ClientCapabilities.builder().elicitation(true, true).build())
          .applyElicitationDefaults(elicitationDefaults)
          .elicitation(live::form)
          .urlElicitation(live::url);
    } else if (elicitationDefaults) {
      spec.capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
          .applyElicitationDefaults(true)
          .elicitation(live::form);
    } else {
      spec.capabilities(McpSchema.ClientCapabilities.builder().build());
    }
    this.client = spec.build();
  }

  @Override
  public void start() {
    McpSchema.InitializeResult init =
        McpWire.await(client.initialize(), limits.connectTimeout().plus(limits.stopGrace()), true);
    protocolVersion = init == null || init.protocolVersion() == null ? "" : init.protocolVersion();
  }

  @Override
  public List<ToolDescriptor> listTools() {
    return McpWire.listAll(client, server, limits.listTimeout());
  }

  @Override
  public CompletableFuture<ToolCallResult> call(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, boolean reissue) {
    return live.track(false, Optional.empty(), () -> send(tool, arguments, meta));
  }

  private CompletableFuture<ToolCallResult> send(
      String tool, Map<String, Object> arguments, Map<String, Object> meta) {
    String version = protocolVersion;
    McpSchema.CallToolRequest request =
        new McpSchema.CallToolRequest(tool, arguments, meta.isEmpty() ? null : meta);
    CompletableFuture<McpSchema.CallToolResult> sdk =
        client
            .callTool(request)
            .toFuture()
            .orTimeout(limits.callTimeout().toMillis(), TimeUnit.MILLISECONDS);
    CompletableFuture<ToolCallResult> out = new CompletableFuture<>();
    sdk.whenComplete(
        (r, e) -> {
          if (e == null) {
            ToolCallResult result = McpWire.toResult(server, tool, r, version);
            McpWireTimings.delivered();
            out.complete(result);
          } else {
            if (e instanceof java.util.concurrent.TimeoutException) {
              cancelOnWire(request, "timed out");
            }
            out.completeExceptionally(McpFailures.call(server, tool, e));
          }
        });
    out.whenComplete(
        (r, e) -> {
          if (out.isCancelled()) {
            sdk.cancel(true);
            cancelOnWire(request, "cancelled by the caller");
          }
        });
    return out;
  }

  /**
   * 2025 has no {@code input_required} answer (a live elicitation is answered by the session), so
   * durable input changes nothing here and a re-issue with answers is refused. A call is
   * task-augmented ({@code params.task}) only on 2025-11-25, when the server declared {@code
   * tasks.requests.tools.call} and the tool's {@code execution.taskSupport} allows it (see {@link
   * CallOptions.TaskMode}).
   */
  @Override
  public CompletableFuture<ToolCallOutcome> outcome(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, CallOptions options) {
    if (options.answer().isPresent()) {
      return CompletableFuture.failedFuture(
          new McpException(
              McpDiagnostic.MCP_TOOL_ERROR,
              server,
              "re-issuing "
                  + tool
                  + " with inputResponses needs revision 2026-07-28; the server "
                  + "speaks "
                  + protocolVersion,
              "answer the call again without inputResponses"));
    }
    String support = tasks.taskSupport(tool);
    boolean offered = TASKS_REVISION.equals(protocolVersion) && tasks.toolCallTasks();
    boolean asTask =
        offered
            && switch (options.tasks()) {
              case FORBIDDEN -> false;
              case AUTOMATIC, REQUIRED -> support.equals("optional") || support.equals("required");
            };
    if (options.tasks() == CallOptions.TaskMode.REQUIRED && !asTask) {
      return CompletableFuture.failedFuture(
          TaskWire.mustBeTask(
              server,
              tool,
              offered
                  ? "its execution.taskSupport is " + support
                  : "the server does not declare tasks.requests.tools.call in " + TASKS_REVISION));
    }
    if (!asTask) {
      return McpWire.mapping(
          live.track(
              options.durableInput(), options.liveInput(), () -> send(tool, arguments, meta)),
          ToolCallOutcome.Completed::new);
    }
    Map<String, Object> params = new java.util.LinkedHashMap<>();
    params.put("name", tool);
    params.put("arguments", arguments);
    if (!meta.isEmpty()) {
      params.put("_meta", meta);
    }
    params.put("task", Map.of());
    String version = protocolVersion;
    return McpWire.mapping(
        answer(tool, "tools/call", params),
        r ->
            new ToolCallOutcome.TaskCreated(
                TaskWire.task(server, tool, r.path("task"), version, Optional.empty()), List.of()));
  }

  /** tasks/get; a completed or failed task's outcome is then fetched with tasks/result. */
  @Override
  public CompletableFuture<McpTask> getTask(String tool, String taskId) {
    String version = protocolVersion;
    return answer(tool, "tasks/get", Map.of("taskId", taskId))
        .thenCompose(
            t ->
                switch (t.path("status").asText()) {
                  case "completed", "failed" ->
                      tasks
                          .request("tasks/result", Map.of("taskId", taskId), limits.callTimeout())
                          .thenApply(
                              r ->
                                  TaskWire.task(
                                      server, tool, t, version, Optional.of(settled(tool, r))));
                  default ->
                      CompletableFuture.completedFuture(
                          TaskWire.task(server, tool, t, version, Optional.empty()));
                });
  }

  private McpTask.State settled(String tool, McpSchema.JSONRPCResponse r) {
    if (r.error() != null) {
      return new McpTask.State.Failed(
          r.error().code() == null ? 0 : r.error().code(), String.valueOf(r.error().message()));
    }
    return new McpTask.State.Completed(
        TaskWire.result(server, tool, LegacyTasks.tree(r.result()), protocolVersion, List.of()));
  }

  @Override
  public CompletableFuture<Void> updateTask(
      String taskId, Map<String, com.fasterxml.jackson.databind.JsonNode> inputResponses) {
    return CompletableFuture.failedFuture(
        new McpException(
            McpDiagnostic.MCP_TOOL_ERROR,
            server,
            "tasks/update needs revision 2026-07-28; the server speaks " + protocolVersion,
            "a 2025-11-25 task asks for input over its live session, which flows does not answer"));
  }

  @Override
  public CompletableFuture<Void> cancelTask(String taskId) {
    return answer("tasks/cancel", "tasks/cancel", Map.of("taskId", taskId)).thenApply(r -> null);
  }

  /** A request of ours on the session: its result, or its JSON-RPC error as a refusal. */
  private CompletableFuture<com.fasterxml.jackson.databind.JsonNode> answer(
      String what, String method, Map<String, Object> params) {
    if (!TASKS_REVISION.equals(protocolVersion)) {
      return CompletableFuture.failedFuture(
          new McpException(
              McpDiagnostic.MCP_TOOL_ERROR,
              server,
              method
                  + " needs revision "
                  + TASKS_REVISION
                  + " or 2026-07-28; the server speaks "
                  + protocolVersion,
              "use a server that supports tasks"));
    }
    return tasks
        .request(method, params, limits.callTimeout())
        .handle(
            (r, e) -> {
              if (e != null) {
                throw McpFailures.call(server, what, e);
              }
              if (r.error() != null) {
                throw McpFailures.rpcError(
                    server, what, r.error().code(), r.error().message(), null);
              }
              return LegacyTasks.tree(r.result());
            });
  }

  /**
   * The SDK's 2025 client drops a given-up request without telling the server; the transport does,
   * naming it by the params object the request was sent with.
   */
  private void cancelOnWire(McpSchema.CallToolRequest request, String reason) {
    if (transport instanceof CancellableTransport ct) {
      ct.cancel(request, reason);
    }
  }

  @Override
  public String protocolVersion() {
    return protocolVersion;
  }

  @Override
  public void close() {
    try {
      client
          .closeGracefully()
          .timeout(limits.stopGrace().multipliedBy(3))
          .onErrorResume(e -> Mono.empty())
          .block();
    } catch (RuntimeException e) {
      LOG.debug("closing session of {}: {}", server, e.toString());
    }
    try {
      client.close();
    } catch (RuntimeException e) {
      LOG.debug("closing client of {}: {}", server, e.toString());
    }
    try {
      transport.close();
    } catch (RuntimeException e) {
      LOG.debug("closing transport of {}: {}", server, e.toString());
    }
  }
}
