package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpTask;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolDescriptor;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.modern.McpSchema;
import io.modelcontextprotocol.modern.ToolParamHeaderAnnotations;
import io.modelcontextprotocol.modern.client.McpAsyncClient;
import io.modelcontextprotocol.modern.client.McpClient;
import io.modelcontextprotocol.modern.client.McpResponseLostException;
import io.modelcontextprotocol.modern.client.transport.McpClientTransport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import reactor.core.publisher.Mono;

/**
 * One server spoken to in the stateless revision 2026-07-28, on the SDK's {@code modern} client: no
 * session and no handshake, so the session is just the client, its transport and what {@code
 * server/discover} answered. A call whose response stream broke before the result is re-issued as a
 * new request (a new id, the same {@code _meta}, so the same idempotency key) only when the caller
 * says the tool may be performed again; otherwise it fails with {@code mcp_result_unavailable} and
 * the caller decides, as after a crash.
 */
final class ModernSession implements Session {
  /** How many times one call is re-issued after lost responses before its outcome is unknown. */
  static final int MAX_REISSUES = 3;

  private static final String TOOLS_CALL = "tools/call";

  /** The JSON-RPC error of a request whose {@code Mcp-*} headers do not match its body. */
  private static final int HEADER_MISMATCH = -32020;

  /** Ids of the requests written out here; strings, so they never meet the SDK's numbers. */
  private static final java.util.concurrent.atomic.AtomicLong RAW_IDS =
      new java.util.concurrent.atomic.AtomicLong();

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ModernSession.class);
  private static final McpJsonMapper SDK_JSON = Json.MAPPER;
  private static final com.fasterxml.jackson.databind.ObjectMapper TREE =
      dev.flows.kernel.json.Jackson.mapper();

  private final String server;
  private final McpClientConfig limits;
  private final McpAsyncClient client;
  private final RequestIds ids;
  private final AutoCloseable closer;
  private final McpSchema.DiscoverResult discovered;

  /**
   * The {@code x-mcp-header} annotations of each tool of the latest listing, by name: the headers
   * of a call written out here are computed from them, as the SDK computes its calls' from its
   * catalog.
   */
  private volatile Map<String, List<ToolParamHeaderAnnotations.Annotation>> headerAnnotations =
      Map.of();

  private ModernSession(
      String server,
      McpClientConfig limits,
      McpAsyncClient client,
      RequestIds ids,
      AutoCloseable closer,
      McpSchema.DiscoverResult discovered) {
    this.server = server;
    this.limits = limits;
    this.client = client;
    this.ids = ids;
    this.closer = closer;
    this.discovered = discovered;
  }

  /**
   * Asks {@code server/discover} over {@code mt}: the session when the server speaks 2026-07-28;
   * empty when it does not and {@code protocol} lets the 2025 handshake follow. A server pinned to
   * 2026-07-28 that does not answer fails the attempt.
   */
  static Optional<ModernSession> tryDiscover(
      String server,
      McpClientConfig limits,
      McpProtocol protocol,
      boolean elicitationDefaults,
      Optional<TransportFactory.ModernTransport> mt) {
    if (mt.isEmpty()) {
      if (!protocol.allowsLegacy()) {
        throw new McpException(
            McpDiagnostic.HANDSHAKE_REJECTED,
            server,
            "the server does not answer server/discover for " + McpProtocol.MODERN,
            "remove the \"protocol\" pin, or pin the revision the server speaks");
      }
      return Optional.empty();
    }
    try {
      McpClientConfig probe =
          protocol.allowsLegacy()
              ? limits.withConnectTimeout(limits.connectTimeout().dividedBy(3))
              : limits;
      return Optional.of(
          ModernSession.discover(
              server, probe, elicitationDefaults, mt.get().transport(), mt.get().closer()));
    } catch (RuntimeException e) {
      try {
        mt.get().closer().close();
      } catch (Exception c) {
        LOG.debug("closing the 2026-07-28 transport of {}: {}", server, c.toString());
      }
      if (protocol.allowsLegacy() && !(e instanceof McpException)) {
        LOG.debug("mcp server {}: no server/discover ({}); using the 2025 handshake", server, e);
        return Optional.empty();
      }
      throw e instanceof McpException me
          ? me
          : McpFailures.handshake(server, e, Optional.empty(), limits.connectTimeout());
    }
  }

  /**
   * Asks the server {@code server/discover} over {@code transport}. Fails with the SDK's exception
   * when the server does not speak 2026-07-28 (the caller then falls back to a 2025 handshake).
   */
  static ModernSession discover(
      String server,
      McpClientConfig limits,
      boolean elicitationDefaults,
      McpClientTransport transport,
      AutoCloseable closer) {
    RequestIds ids = new RequestIds(transport);
    McpClient.AsyncBuilder b = McpClient.async(ids);
    if (elicitationDefaults) {
      // Multi round-trip requests (input_required): the SDK retries with the answers and the
      // server's requestState echoed as it was sent.
      b.formElicitation(req -> Mono.just(McpSchema.ElicitResult.accept(defaults(req))));
    }
    McpAsyncClient c =
        b.clientInfo(McpSchema.Implementation.builder("flows", "0.1.0").build())
            .callTimeout(
                limits.callTimeout().compareTo(limits.listTimeout()) > 0
                    ? limits.callTimeout()
                    : limits.listTimeout())
            .roundTimeout(limits.callTimeout())
            .build();
    McpSchema.DiscoverResult d = McpWire.await(c.discover(), limits.connectTimeout(), true);
    if (d.supportedVersions() != null && !d.supportedVersions().contains(McpProtocol.MODERN)) {
      throw new IllegalStateException(
          "server/discover lists " + d.supportedVersions() + ", not " + McpProtocol.MODERN);
    }
    return new ModernSession(server, limits, c, ids, closer, d);
  }

  @Override
  public void start() {
    // Stateless: server/discover already answered, there is no handshake.
  }

  @Override
  public String protocolVersion() {
    return McpProtocol.MODERN;
  }

  /**
   * tools/list page by page, each tool's schemas kept exactly as the server wrote them, and its
   * header annotations noted for the calls written out here.
   */
  @Override
  public List<ToolDescriptor> listTools() {
    if (discovered.capabilities() != null && discovered.capabilities().tools() == null) {
      headerAnnotations = Map.of();
      return List.of();
    }
    Map<String, List<ToolParamHeaderAnnotations.Annotation>> headers =
        new java.util.concurrent.ConcurrentHashMap<>();
    List<ToolDescriptor> tools =
        McpWire.paginate(
            server,
            cursor -> {
              var spec = cursor == null ? client.tools() : client.tools().cursor(cursor);
              McpSchema.ListToolsResult page =
                  McpWire.await(spec.list(), limits.listTimeout(), true);
              page.tools().forEach(t -> headers.put(t.name(), ParamHeaders.of(t)));
              return new McpWire.Page(
                  page.tools().stream().map(this::describe).toList(), page.nextCursor());
            });
    headerAnnotations = Map.copyOf(headers);
    return tools;
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
                  listTools();
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

  private ToolDescriptor describe(McpSchema.Tool t) {
    McpSchema.ToolAnnotations a = t.annotations();
    return McpWire.describe(
        server,
        t.name(),
        t.title(),
        t.description(),
        t.inputSchema(),
        t.outputSchema(),
        a == null
            ? ToolDescriptor.ToolHints.NONE
            : McpWire.hints(
                a.readOnlyHint(), a.destructiveHint(), a.idempotentHint(), a.openWorldHint()));
  }

  /**
   * tools/call; {@code reissue} allows re-sending it when its response is lost. {@code cancel}
   * completes when the caller gives up: the SDK then closes the request's stream (HTTP) or sends
   * {@code notifications/cancelled} (stdio).
   */
  @Override
  public CompletableFuture<ToolCallResult> call(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, boolean reissue) {
    CompletableFuture<ToolCallResult> out = new CompletableFuture<>();
    Object key = meta.get(McpTransportPort.IDEMPOTENCY_KEY_META);
    List<ToolCallResult.WireAttempt> attempts = new ArrayList<>();
    send(tool, arguments, meta, reissue, key, attempts, Optional.empty(), out);
    return out;
  }

  private void send(
      String tool,
      Map<String, Object> arguments,
      Map<String, Object> meta,
      boolean reissue,
      Object key,
      List<ToolCallResult.WireAttempt> attempts,
      Optional<String> because,
      CompletableFuture<ToolCallResult> out) {
    if (out.isDone()) {
      return;
    }
    String marker = key == null ? null : String.valueOf(key);
    CompletableFuture<McpSchema.CallToolResult> sdk =
        client
            .tool(tool)
            .arguments(arguments)
            .meta(meta)
            .callTimeout(limits.callTimeout())
            .call()
            .toFuture();
    out.whenComplete(
        (r, e) -> {
          if (out.isCancelled()) {
            sdk.cancel(true);
          }
        });
    sdk.whenComplete(
        (r, e) -> {
          attempts.add(
              new ToolCallResult.WireAttempt(
                  ids.last(marker).orElse("?"), protocolVersion(), because));
          if (e == null) {
            out.complete(result(tool, r, attempts));
            return;
          }
          Throwable x =
              e instanceof java.util.concurrent.CompletionException ce ? ce.getCause() : e;
          if (x instanceof McpResponseLostException lost) {
            int sent = attempts.size();
            if (reissue && sent <= MAX_REISSUES) {
              send(
                  tool,
                  arguments,
                  meta,
                  true,
                  key,
                  attempts,
                  Optional.of(
                      "the response stream of request "
                          + attempts.get(sent - 1).requestId()
                          + " broke before the result: "
                          + lost.getMessage()),
                  out);
              return;
            }
            out.completeExceptionally(
                lost(tool, attempts.get(sent - 1).requestId(), reissue, sent, "", x));
            return;
          }
          out.completeExceptionally(McpFailures.modernCall(server, tool, x));
        });
  }

  /** True when {@code server/discover} declared the tasks extension. */
  boolean declaresTasks() {
    return discovered.capabilities() != null
        && discovered.capabilities().extensions() != null
        && discovered.capabilities().extensions().containsKey(TaskWire.EXTENSION);
  }

  /**
   * A call made as {@code options} say. Plain options take the SDK's path ({@link #call}); any
   * other call is written out here, since the SDK knows neither the tasks extension nor returning
   * an {@code input_required} answer to its caller: the request declares the extension when the
   * server does and tasks are not forbidden, and form and URL elicitation when input is durable,
   * and carries the answers and the echoed {@code requestState} of a re-issue.
   */
  @Override
  public CompletableFuture<ToolCallOutcome> outcome(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, CallOptions options) {
    boolean tasks = options.tasks() != CallOptions.TaskMode.FORBIDDEN && declaresTasks();
    if (options.tasks() == CallOptions.TaskMode.REQUIRED && !tasks) {
      return CompletableFuture.failedFuture(
          TaskWire.mustBeTask(
              server,
              tool,
              "the server does not declare the " + TaskWire.EXTENSION + " extension"));
    }
    if (!tasks && !options.durableInput() && options.answer().isEmpty()) {
      return McpWire.mapping(
          call(tool, arguments, meta, options.reissue()), ToolCallOutcome.Completed::new);
    }
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
                      TaskWire.task(server, tool, r, protocolVersion(), Optional.empty()),
                      attempts);
              case "input_required" ->
                  new ToolCallOutcome.InputRequired(
                      server,
                      tool,
                      TaskWire.inputRequests(r.path("inputRequests")),
                      r.path("requestState").isTextual()
                          ? Optional.of(r.path("requestState").asText())
                          : Optional.empty(),
                      protocolVersion(),
                      attempts);
              default ->
                  new ToolCallOutcome.Completed(
                      TaskWire.result(server, tool, r, protocolVersion(), attempts));
            });
  }

  @Override
  public CompletableFuture<McpTask> getTask(String tool, String taskId) {
    return raw(
            "tasks/get",
            tool,
            taskId,
            Map.of("taskId", taskId),
            Map.of(),
            tasksCapability(),
            true,
            new ArrayList<>())
        .thenApply(r -> TaskWire.task(server, tool, r, protocolVersion(), Optional.empty()));
  }

  @Override
  public CompletableFuture<Void> updateTask(String taskId, Map<String, JsonNode> inputResponses) {
    return raw(
            "tasks/update",
            "tasks/update",
            taskId,
            Map.of(
                "taskId", taskId, "inputResponses", TREE.convertValue(inputResponses, Map.class)),
            Map.of(),
            tasksCapability(),
            true,
            new ArrayList<>())
        .thenApply(r -> null);
  }

  @Override
  public CompletableFuture<Void> cancelTask(String taskId) {
    return raw(
            "tasks/cancel",
            "tasks/cancel",
            taskId,
            Map.of("taskId", taskId),
            Map.of(),
            tasksCapability(),
            true,
            new ArrayList<>())
        .thenApply(r -> null);
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
    var request =
        io.modelcontextprotocol.modern.client.transport.McpTransportRequest.builder(
                new io.modelcontextprotocol.modern.JsonRpc.JSONRPCRequest(
                    "2.0", method, id, params),
                McpProtocol.MODERN)
            .name(name)
            .paramHeaders(headers)
            .roundTimeout(limits.callTimeout())
            .build();
    CompletableFuture<Optional<io.modelcontextprotocol.modern.JsonRpc.JSONRPCResponse>> sdk =
        ids.exchange(request)
            .ofType(io.modelcontextprotocol.modern.JsonRpc.JSONRPCResponse.class)
            .next()
            .map(Optional::of)
            .defaultIfEmpty(Optional.empty())
            .toFuture()
            .orTimeout(limits.callTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    out.whenComplete(
        (r, e) -> {
          if (out.isCancelled()) {
            sdk.cancel(true);
          }
        });
    sdk.whenComplete(
        (r, e) -> {
          attempts.add(new ToolCallResult.WireAttempt(id, McpProtocol.MODERN, because));
          Throwable x =
              e instanceof java.util.concurrent.CompletionException ce ? ce.getCause() : e;
          if (x instanceof java.util.concurrent.TimeoutException) {
            out.completeExceptionally(McpFailures.modernCall(server, what, x));
            return;
          }
          if (r != null && r.isPresent() && r.get().error() != null) {
            if (TOOLS_CALL.equals(method)
                && !relisted
                && ids.mirrorsToolParams()
                && Integer.valueOf(HEADER_MISMATCH).equals(r.get().error().code())) {
              String why =
                  "the server refused the headers of request "
                      + id
                      + " (HeaderMismatch: "
                      + r.get().error().message()
                      + "); sent with the headers of a new tools/list";
              sendCall(name, params, true, reissue, attempts, Optional.of(why), out);
              return;
            }
            out.completeExceptionally(
                McpFailures.modernCall(
                    server,
                    what,
                    new io.modelcontextprotocol.modern.McpException(r.get().error())));
            return;
          }
          if (r != null && r.isPresent()) {
            out.complete(TREE.valueToTree(r.get().result()));
            return;
          }
          // No response: the stream ended or broke before it.
          String lost = x == null ? "the stream ended without a response" : x.toString();
          if (reissue && attempts.size() <= MAX_REISSUES) {
            rawSend(
                method,
                what,
                name,
                params,
                headers,
                relisted,
                true,
                attempts,
                Optional.of(
                    "the response stream of request " + id + " broke before the result: " + lost),
                out);
            return;
          }
          out.completeExceptionally(lost(what, id, reissue, attempts.size(), ": " + lost, x));
        });
  }

  /** {@code mcp_result_unavailable}: the response of request {@code id} never arrived. */
  private McpException lost(
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

  private ToolCallResult result(
      String tool, McpSchema.CallToolResult r, List<ToolCallResult.WireAttempt> attempts) {
    try {
      return McpWire.toResult(
          server,
          tool,
          TREE.readTree(SDK_JSON.writeValueAsString(r)),
          Boolean.TRUE.equals(r.isError()),
          protocolVersion(),
          attempts);
    } catch (IOException e) {
      throw new IllegalStateException("unreadable tool result", e);
    }
  }

  @Override
  public void close() {
    try {
      closer.close();
    } catch (Exception e) {
      // Nothing to keep: the server holds no session for us.
    }
  }

  /**
   * The SDK's transport, noting the JSON-RPC id of each tools/call by the idempotency key in its
   * {@code _meta}, so a call can say which requests went out for it.
   */
  static final class RequestIds implements McpClientTransport {
    private final McpClientTransport delegate;
    private final Map<String, String> lastByKey = new java.util.concurrent.ConcurrentHashMap<>();

    RequestIds(McpClientTransport delegate) {
      this.delegate = delegate;
    }

    @Override
    public reactor.core.publisher.Flux<io.modelcontextprotocol.modern.JsonRpc.JSONRPCMessage>
        exchange(io.modelcontextprotocol.modern.client.transport.McpTransportRequest request) {
      var m = request.message();
      if ("tools/call".equals(m.method())) {
        JsonNode key = params(m.params()).path("_meta").path(McpTransportPort.IDEMPOTENCY_KEY_META);
        if (key.isTextual()) {
          lastByKey.put(key.asText(), String.valueOf(m.id()));
        }
      }
      return delegate.exchange(request);
    }

    @Override
    public boolean mirrorsToolParams() {
      return delegate.mirrorsToolParams();
    }

    Optional<String> last(String key) {
      return key == null ? Optional.empty() : Optional.ofNullable(lastByKey.get(key));
    }
  }

  /** The requested schema's defaults, property by property (SEP-1034). */
  private static Map<String, Object> defaults(McpSchema.ElicitFormRequest req) {
    Map<String, Object> out = new java.util.LinkedHashMap<>();
    if (req.requestedSchema() != null
        && req.requestedSchema().get("properties") instanceof Map<?, ?> props) {
      props.forEach(
          (k, v) -> {
            if (v instanceof Map<?, ?> p && p.containsKey("default")) {
              out.put(String.valueOf(k), p.get("default"));
            }
          });
    }
    return out;
  }

  private static JsonNode params(Object params) {
    try {
      return TREE.readTree(SDK_JSON.writeValueAsString(params));
    } catch (IOException e) {
      return JsonNodeFactory.instance.objectNode();
    }
  }
}
