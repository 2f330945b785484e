package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
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
final class ModernSession implements ProtocolSession {
  /** How many times one call is re-issued after lost responses before its outcome is unknown. */
  static final int MAX_REISSUES = 3;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ModernSession.class);
  private static final McpJsonMapper SDK_JSON = Json.MAPPER;
  private static final com.fasterxml.jackson.databind.ObjectMapper TREE =
      dev.flows.kernel.json.Jackson.mapper();

  private final String server;
  private final McpClientConfig limits;
  private final McpAsyncClient client;
  private final ModernRequestIds ids;
  private final AutoCloseable closer;
  private final McpSchema.DiscoverResult discovered;
  private final ModernRequests requests;

  private ModernSession(
      String server,
      McpClientConfig limits,
      McpAsyncClient client,
      ModernRequestIds ids,
      AutoCloseable closer,
      McpSchema.DiscoverResult discovered) {
    this.server = server;
    this.limits = limits;
    this.client = client;
    this.ids = ids;
    this.closer = closer;
    this.discovered = discovered;
    this.requests = new ModernRequests(server, limits, ids, this::listTools);
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
    ModernRequestIds ids = new ModernRequestIds(transport);
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
   * header annotations noted for the calls written out by hand ({@link ModernRequests}).
   */
  @Override
  public List<ToolDescriptor> listTools() {
    if (discovered.capabilities() != null && discovered.capabilities().tools() == null) {
      requests.noteHeaders(Map.of());
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
    requests.noteHeaders(Map.copyOf(headers));
    return tools;
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
    ModernRequests.cancelWith(out, sdk);
    sdk.whenComplete(
        (r, e) -> {
          attempts.add(
              new ToolCallResult.WireAttempt(
                  ids.last(marker).orElse("?"), protocolVersion(), because));
          if (e == null) {
            succeeded(tool, r, marker, attempts, out);
            return;
          }
          Throwable x =
              e instanceof java.util.concurrent.CompletionException ce ? ce.getCause() : e;
          // An answer cut off at the size limit is not re-issued: it would be cut off again.
          if (x instanceof McpResponseLostException lost
              && McpFailures.cutOff(server, tool, x).isEmpty()) {
            int sent = attempts.size();
            if (reissue && sent <= MAX_REISSUES) {
              send(
                  tool,
                  arguments,
                  meta,
                  true,
                  key,
                  attempts,
                  Optional.of(brokeBefore(attempts.get(sent - 1).requestId(), lost)),
                  out);
              return;
            }
            ids.forget(marker);
            out.completeExceptionally(
                requests.lost(tool, attempts.get(sent - 1).requestId(), reissue, sent, "", x));
            return;
          }
          ids.forget(marker);
          out.completeExceptionally(McpFailures.modernCall(server, tool, x));
        });
  }

  private static String brokeBefore(String requestId, McpResponseLostException lost) {
    return "the response stream of request "
        + requestId
        + " broke before the result: "
        + lost.getMessage();
  }

  private void succeeded(
      String tool,
      McpSchema.CallToolResult r,
      String marker,
      List<ToolCallResult.WireAttempt> attempts,
      CompletableFuture<ToolCallResult> out) {
    ids.forget(marker);
    ToolCallResult res = result(tool, r, attempts);
    McpWireTimings.delivered();
    out.complete(res);
  }

  /** How many calls' request ids are kept (those of the calls still going). */
  int trackedCalls() {
    return ids.tracked();
  }

  /** True when {@code server/discover} declared the tasks extension. */
  boolean declaresTasks() {
    return discovered.capabilities() != null
        && discovered.capabilities().extensions() != null
        && discovered.capabilities().extensions().containsKey(TaskWire.EXTENSION);
  }

  /**
   * A call made as {@code options} say. Plain options take the SDK's path ({@link #call}); any
   * other call is written out by hand ({@link ModernRequests}), since the SDK knows neither the
   * tasks extension nor returning an {@code input_required} answer to its caller: the request
   * declares the extension when the server does and tasks are not forbidden, and form and URL
   * elicitation when input is durable, and carries the answers and the echoed {@code requestState}
   * of a re-issue.
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
    return requests.call(tool, arguments, meta, options, tasks);
  }

  @Override
  public CompletableFuture<McpTask> getTask(String tool, String taskId) {
    return requests.getTask(tool, taskId);
  }

  @Override
  public CompletableFuture<Void> updateTask(String taskId, Map<String, JsonNode> inputResponses) {
    return requests.updateTask(taskId, inputResponses);
  }

  @Override
  public CompletableFuture<Void> cancelTask(String taskId) {
    return requests.cancelTask(taskId);
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
}
