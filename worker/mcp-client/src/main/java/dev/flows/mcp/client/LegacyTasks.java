package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.json.Jackson;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The 2025 session's transport with what the SDK's session client lacks for the experimental tasks
 * of 2025-11-25: it reads {@code capabilities.tasks} from the initialize answer and each tool's
 * {@code execution.taskSupport} from tools/list (the SDK's records drop both), and sends requests
 * of its own ({@code tools/call} with {@code params.task}, {@code tasks/*}) on the same session,
 * taking their answers before the SDK sees them.
 */
final class LegacyTasks implements McpClientTransport, CancellableTransport {
  private static final ObjectMapper TREE = Jackson.mapper();
  private static final AtomicLong IDS = new AtomicLong();

  private final McpClientTransport delegate;
  private final Map<Object, CompletableFuture<McpSchema.JSONRPCResponse>> ours =
      new ConcurrentHashMap<>();
  private final Map<Object, String> watched = new ConcurrentHashMap<>();
  private final Map<String, String> taskSupport = new ConcurrentHashMap<>();
  private volatile boolean toolCallTasks;

  LegacyTasks(McpClientTransport delegate) {
    this.delegate = delegate;
  }

  /** The server declared {@code capabilities.tasks.requests.tools.call}. */
  boolean toolCallTasks() {
    return toolCallTasks;
  }

  /** The tool's {@code execution.taskSupport} ({@code forbidden} when it did not say). */
  String taskSupport(String tool) {
    return taskSupport.getOrDefault(tool, "forbidden");
  }

  /** Sends {@code method} on this session; completes with the answer (a result or an error). */
  CompletableFuture<McpSchema.JSONRPCResponse> request(
      String method, Map<String, Object> params, Duration timeout) {
    String id = "flows-task-" + IDS.incrementAndGet();
    CompletableFuture<McpSchema.JSONRPCResponse> answer = new CompletableFuture<>();
    ours.put(id, answer);
    answer.whenComplete((r, e) -> ours.remove(id));
    delegate
        .sendMessage(new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, method, id, params))
        .subscribe(v -> {}, answer::completeExceptionally);
    return answer.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  static JsonNode tree(Object result) {
    return TREE.valueToTree(result);
  }

  @Override
  public Mono<Void> connect(
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    return delegate.connect(
        in ->
            in.flatMap(
                m -> {
                  if (m instanceof McpSchema.JSONRPCResponse r) {
                    CompletableFuture<McpSchema.JSONRPCResponse> mine = ours.remove(r.id());
                    if (mine != null) {
                      mine.complete(r);
                      return Mono.empty();
                    }
                    String kind = watched.remove(r.id());
                    if (kind != null && r.result() != null) {
                      observe(kind, tree(r.result()));
                    }
                  }
                  return handler.apply(Mono.just(m));
                }));
  }

  private void observe(String kind, JsonNode result) {
    if (kind.equals("initialize")) {
      toolCallTasks = result.at("/capabilities/tasks/requests/tools/call").isObject();
    } else {
      for (JsonNode t : result.path("tools")) {
        JsonNode s = t.path("execution").path("taskSupport");
        if (s.isTextual()) {
          taskSupport.put(t.path("name").asText(), s.asText());
        } else {
          taskSupport.remove(t.path("name").asText());
        }
      }
    }
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    if (message instanceof McpSchema.JSONRPCRequest r
        && (r.method().equals("initialize") || r.method().equals("tools/list"))) {
      watched.put(r.id(), r.method());
    }
    return delegate.sendMessage(message);
  }

  @Override
  public void cancel(McpSchema.CallToolRequest request, String reason) {
    if (delegate instanceof CancellableTransport ct) {
      ct.cancel(request, reason);
    }
  }

  @Override
  public void setExceptionHandler(Consumer<Throwable> handler) {
    delegate.setExceptionHandler(handler);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return delegate.closeGracefully();
  }

  @Override
  public void close() {
    ours.values().forEach(f -> f.completeExceptionally(new IllegalStateException("closed")));
    delegate.close();
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return delegate.unmarshalFrom(data, typeRef);
  }

  @Override
  public List<String> protocolVersions() {
    return delegate.protocolVersions();
  }

  /** An answer's error as {@code (code, message)}, when it is one. */
  static Optional<McpSchema.JSONRPCResponse.JSONRPCError> error(McpSchema.JSONRPCResponse r) {
    return Optional.ofNullable(r.error());
  }
}
