package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpTask;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.kernel.mcp.ToolCallResult;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.modern.ToolParamHeaderAnnotations;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The requests a {@link ModernSession} writes out by hand over the SDK's transport rather than
 * through the SDK's client: calls the SDK cannot make (the tasks extension, durable input, answers
 * to {@code input_required}) and the task verbs. Kept apart from the session so the SDK's path and
 * the hand-written one each read on their own; both share the session's transport and limits.
 */
final class ModernRequests {
  private static final String TOOLS_CALL = "tools/call";

  /** The JSON-RPC error of a request whose {@code Mcp-*} headers do not match its body. */
  private static final int HEADER_MISMATCH = -32020;

  /** Ids of the requests written out here; strings, so they never meet the SDK's numbers. */
  private static final java.util.concurrent.atomic.AtomicLong RAW_IDS =
      new java.util.concurrent.atomic.AtomicLong();

  private static final McpJsonMapper SDK_JSON = Json.MAPPER;
  private static final com.fasterxml.jackson.databind.ObjectMapper TREE =
      dev.flows.kernel.json.Jackson.mapper();

  private final String server;
  private final McpClientConfig limits;
  private final ModernRequestIds ids;

  /** Lists the server's tools anew; the listing notes its header annotations here. */
  private final Runnable listTools;

  /**
   * The {@code x-mcp-header} annotations of each tool of the latest listing, by name: the headers
   * of a call written out here are computed from them, as the SDK computes its calls' from its
   * catalog.
   */
  private volatile Map<String, List<ToolParamHeaderAnnotations.Annotation>> headerAnnotations =
      Map.of();

  ModernRequests(String server, McpClientConfig limits, ModernRequestIds ids, Runnable listTools) {
    this.server = server;
    this.limits = limits;
    this.ids = ids;
    this.listTools = listTools;
  }

  /** Notes the header annotations of a new tools/list. */
  void noteHeaders(Map<String, List<ToolParamHeaderAnnotations.Annotation>> byTool) {
    headerAnnotations = byTool;
  }

  /**
   * The {@code Mcp-Param-*} header values of a call of {@code tool} with {@code arguments}, on a
   * transport that mirrors them (HTTP; none on stdio). As on the SDK's path, a tool missing from
   * the latest listing (or every tool, when {@code relist}) is looked up in a new listing first,
   * and a tool the server does not list is refused rather than called without its headers.
   */
  private CompletableFuture<Map<String, String>> paramHeaders(
      String tool, Map<String, Object> arguments, boolean relist) {
    if (!ids.mirrorsToolParams()) {
      return CompletableFuture.completedFuture(Map.of());
    }
    CompletableFuture<Map<String, List<ToolParamHeaderAnnotations.Annotation>>> known =
        !relist && headerAnnotations.containsKey(tool)
            ? CompletableFuture.completedFuture(headerAnnotations)
            : CompletableFuture.supplyAsync(
                () -> {
                  listTools.run();
                  return headerAnnotations;
                });
    return known.thenApply(
        byTool -> {
          List<ToolParamHeaderAnnotations.Annotation> a = byTool.get(tool);
          if (a == null) {
            throw new McpException(
                McpDiagnostic.MCP_UNKNOWN_TOOL,
                server,
                "the server does not list "
                    + tool
                    + ", so the Mcp-Param-* headers its call needs over HTTP are unknown;"
                    + " not sent",
                "refresh the tool list; names are case-sensitive");
          }
          return ParamHeaders.values(a, arguments, SDK_JSON);
        });
  }

  /**
   * The hand-written call of {@link ModernSession#outcome}: declares the tasks extension when
   * {@code tasks}, and form and URL elicitation when input is durable, and carries the answers and
   * the echoed {@code requestState} of a re-issue.
   */
  CompletableFuture<ToolCallOutcome> call(
      String tool,
      Map<String, Object> arguments,
      Map<String, Object> meta,
      CallOptions options,
      boolean tasks) {
    Map<String, Object> params = new java.util.LinkedHashMap<>();
    params.put("name", tool);
    params.put("arguments", arguments);
    options
        .answer()
        .ifPresent(
            a -> {
              params.put("inputResponses", TREE.convertValue(a.inputResponses(), Map.class));
              a.requestState().ifPresent(rs -> params.put("requestState", rs));
            });
    Map<String, Object> caps = new java.util.LinkedHashMap<>();
    if (options.durableInput()) {
      caps.put("elicitation", Map.of("form", Map.of(), "url", Map.of()));
    }
    if (tasks) {
      caps.put("extensions", Map.of(TaskWire.EXTENSION, Map.of()));
    }
    List<ToolCallResult.WireAttempt> attempts = new ArrayList<>();
    return McpWire.mapping(
        raw(TOOLS_CALL, tool, tool, params, meta, caps, options.reissue(), attempts),
        r ->
            switch (r.path("resultType").asText("complete")) {
              case "task" ->
                  new ToolCallOutcome.TaskCreated(
                      TaskWire.task(server, tool, r, McpProtocol.MODERN, Optional.empty()),
                      attempts);
              case "input_required" ->
                  new ToolCallOutcome.InputRequired(
                      server,
                      tool,
                      TaskWire.inputRequests(r.path("inputRequests")),
                      r.path("requestState").isTextual()
                          ? Optional.of(r.path("requestState").asText())
                          : Optional.empty(),
                      McpProtocol.MODERN,
                      attempts);
              default ->
                  new ToolCallOutcome.Completed(
                      TaskWire.result(server, tool, r, McpProtocol.MODERN, attempts));
            });
  }

  CompletableFuture<McpTask> getTask(String tool, String taskId) {
    return taskRequest("tasks/get", tool, taskId, Map.of("taskId", taskId))
        .thenApply(r -> TaskWire.task(server, tool, r, McpProtocol.MODERN, Optional.empty()));
  }

  CompletableFuture<Void> updateTask(String taskId, Map<String, JsonNode> inputResponses) {
    return taskRequest(
            "tasks/update",
            "tasks/update",
            taskId,
            Map.of(
                "taskId", taskId, "inputResponses", TREE.convertValue(inputResponses, Map.class)))
        .thenApply(r -> null);
  }

  CompletableFuture<Void> cancelTask(String taskId) {
    return taskRequest("tasks/cancel", "tasks/cancel", taskId, Map.of("taskId", taskId))
        .thenApply(r -> null);
  }

  /**
   * One task verb: routed by the task id, declaring the extension, re-sent if its answer is lost.
   */
  private CompletableFuture<JsonNode> taskRequest(
      String method, String what, String taskId, Map<String, Object> params) {
    return raw(method, what, taskId, params, Map.of(), tasksCapability(), true, new ArrayList<>());
  }

  private static Map<String, Object> tasksCapability() {
    return Map.of("extensions", Map.of(TaskWire.EXTENSION, Map.of()));
  }

  /**
   * One request written out by hand over the SDK's transport, with the version, capabilities and
   * client info the SDK would put in {@code _meta}, then the caller's {@code meta}; {@code name}
   * goes in the {@code Mcp-Name} header on HTTP (the tool, or the task id the spec routes by), and
   * a {@code tools/call} carries the tool's {@code Mcp-Param-*} headers. Answers the JSON result; a
   * JSON-RPC error fails as the SDK's path fails. A response lost on the wire is sent again (new
   * id, same params) when {@code reissue} allows, as a call is.
   */
  private CompletableFuture<JsonNode> raw(
      String method,
      String what,
      String name,
      Map<String, Object> params,
      Map<String, Object> meta,
      Map<String, Object> capabilities,
      boolean reissue,
      List<ToolCallResult.WireAttempt> attempts) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("io.modelcontextprotocol/protocolVersion", McpProtocol.MODERN);
    m.put("io.modelcontextprotocol/clientCapabilities", capabilities);
    m.put("io.modelcontextprotocol/clientInfo", Map.of("name", "flows", "version", "0.1.0"));
    m.putAll(meta);
    Map<String, Object> p = new java.util.LinkedHashMap<>(params);
    p.put("_meta", m);
    CompletableFuture<JsonNode> out = new CompletableFuture<>();
    if (TOOLS_CALL.equals(method)) {
      sendCall(name, p, false, reissue, attempts, Optional.empty(), out);
    } else {
      rawSend(method, what, name, p, Map.of(), false, reissue, attempts, Optional.empty(), out);
    }
    return out;
  }

  /**
   * Sends the {@code tools/call} of {@code tool} with the {@code Mcp-Param-*} headers of the latest
   * listing, or of a new one when {@code relist}.
   */
  private void sendCall(
      String tool,
      Map<String, Object> params,
      boolean relist,
      boolean reissue,
      List<ToolCallResult.WireAttempt> attempts,
      Optional<String> because,
      CompletableFuture<JsonNode> out) {
    paramHeaders(tool, arguments(params), relist)
        .whenComplete(
            (headers, e) -> {
              if (e != null) {
                out.completeExceptionally(McpFailures.modernCall(server, tool, e));
                return;
              }
              rawSend(
                  TOOLS_CALL, tool, tool, params, headers, relist, reissue, attempts, because, out);
            });
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> arguments(Map<String, Object> params) {
    return params.get("arguments") instanceof Map<?, ?> a ? (Map<String, Object>) a : Map.of();
  }

  /** The response to one request, empty when its stream ends without one. */
  private CompletableFuture<Optional<io.modelcontextprotocol.modern.JsonRpc.JSONRPCResponse>>
      exchange(
          String id,
          String method,
          String name,
          Map<String, Object> params,
          Map<String, String> headers) {
    var request =
        io.modelcontextprotocol.modern.client.transport.McpTransportRequest.builder(
                new io.modelcontextprotocol.modern.JsonRpc.JSONRPCRequest(
                    "2.0", method, id, params),
                McpProtocol.MODERN)
            .name(name)
            .paramHeaders(headers)
            .roundTimeout(limits.callTimeout())
            .build();
    return ids.exchange(request)
        .ofType(io.modelcontextprotocol.modern.JsonRpc.JSONRPCResponse.class)
        .next()
        .map(Optional::of)
        .defaultIfEmpty(Optional.empty())
        .toFuture()
        .orTimeout(limits.callTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  private static String relistedBecause(
      String id, io.modelcontextprotocol.modern.JsonRpc.JSONRPCResponse r) {
    return "the server refused the headers of request "
        + id
        + " (HeaderMismatch: "
        + r.error().message()
        + "); sent with the headers of a new tools/list";
  }

  private static io.modelcontextprotocol.modern.McpException refusal(
      io.modelcontextprotocol.modern.JsonRpc.JSONRPCResponse r) {
    return new io.modelcontextprotocol.modern.McpException(r.error());
  }

  /** Cancels {@code exchange} when {@code out} is cancelled (its caller stopped waiting). */
  static void cancelWith(CompletableFuture<?> out, CompletableFuture<?> exchange) {
    out.whenComplete(
        (r, e) -> {
          if (out.isCancelled()) {
            exchange.cancel(true);
          }
        });
  }

  /** Whether the server refused the request's {@code Mcp-Param-*} headers (HeaderMismatch). */
  private boolean headersRefused(io.modelcontextprotocol.modern.JsonRpc.JSONRPCResponse r) {
    return ids.mirrorsToolParams() && Integer.valueOf(HEADER_MISMATCH).equals(r.error().code());
  }

  /**
   * Sends one request; {@code headers} are its {@code Mcp-Param-*} values. A {@code tools/call} the
   * server refuses with {@code HeaderMismatch} is sent once more with the headers of a new listing
   * (the tool's inputSchema may have changed), as the SDK's path does.
   */
  private void rawSend(
      String method,
      String what,
      String name,
      Map<String, Object> params,
      Map<String, String> headers,
      boolean relisted,
      boolean reissue,
      List<ToolCallResult.WireAttempt> attempts,
      Optional<String> because,
      CompletableFuture<JsonNode> out) {
    if (out.isDone()) {
      return;
    }
    String id = "flows-" + RAW_IDS.incrementAndGet();
    CompletableFuture<Optional<io.modelcontextprotocol.modern.JsonRpc.JSONRPCResponse>> sdk =
        exchange(id, method, name, params, headers);
    cancelWith(out, sdk);
    sdk.whenComplete(
        (r, e) -> {
          answered(method, id, params, attempts, because);
          Throwable x =
              e instanceof java.util.concurrent.CompletionException ce ? ce.getCause() : e;
          if (x instanceof java.util.concurrent.TimeoutException) {
            out.completeExceptionally(McpFailures.modernCall(server, what, x));
            return;
          }
          if (r != null && r.isPresent() && r.get().error() != null) {
            if (TOOLS_CALL.equals(method) && !relisted && headersRefused(r.get())) {
              String why = relistedBecause(id, r.get());
              sendCall(name, params, true, reissue, attempts, Optional.of(why), out);
            } else {
              out.completeExceptionally(McpFailures.modernCall(server, what, refusal(r.get())));
            }
            return;
          }
          if (r != null && r.isPresent()) {
            out.complete(result(method, r.get()));
            return;
          }
          // No response: the stream ended or broke before it.
          String lost = x == null ? "the stream ended without a response" : x.toString();
          if (reissue && attempts.size() <= ModernSession.MAX_REISSUES) {
            String why = "the response stream of request " + id + " broke before the result: ";
            rawSend(
                method,
                what,
                name,
                params,
                headers,
                relisted,
                true,
                attempts,
                Optional.of(why + lost),
                out);
            return;
          }
          out.completeExceptionally(lost(what, id, reissue, attempts.size(), ": " + lost, x));
        });
  }

  /**
   * Notes the request {@code id} among the call's attempts; this path names its requests itself, so
   * the ids the session noted for the SDK's path are dropped.
   */
  private void answered(
      String method,
      String id,
      Map<String, Object> params,
      List<ToolCallResult.WireAttempt> attempts,
      Optional<String> because) {
    attempts.add(new ToolCallResult.WireAttempt(id, McpProtocol.MODERN, because));
    if (TOOLS_CALL.equals(method)) {
      ModernRequestIds.idempotencyKey(params).ifPresent(ids::forget);
    }
  }

  private static JsonNode result(
      String method, io.modelcontextprotocol.modern.JsonRpc.JSONRPCResponse r) {
    JsonNode result = TREE.valueToTree(r.result());
    if (TOOLS_CALL.equals(method)) {
      McpWireTimings.delivered();
    }
    return result;
  }

  /** {@code mcp_result_unavailable}: the response of request {@code id} never arrived. */
  McpException lost(
      String what, String id, boolean reissue, int sent, String detail, Throwable cause) {
    return new McpException(
        McpDiagnostic.MCP_RESULT_UNAVAILABLE,
        server,
        "the response of "
            + what
            + " was lost (request "
            + id
            + ", "
            + (reissue
                ? sent + " requests sent"
                : "not re-sent: the tool may not be performed twice")
            + "): the outcome on the server is unknown"
            + detail,
        "check the server, then resolve the step",
        cause);
  }
}
