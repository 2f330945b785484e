package dev.flows.mcp.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.json.Jackson;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.modern.JsonRpc;
import io.modelcontextprotocol.modern.McpSchema;
import io.modelcontextprotocol.modern.server.McpAsyncResponse;
import io.modelcontextprotocol.modern.server.McpFeature;
import io.modelcontextprotocol.modern.server.McpRequestContext;
import io.modelcontextprotocol.modern.server.McpRequestManager;
import io.modelcontextprotocol.modern.server.McpServer;
import io.modelcontextprotocol.modern.server.McpTransportResponse;
import io.modelcontextprotocol.modern.server.feature.McpSyncTool;
import io.modelcontextprotocol.modern.server.feature.McpSyncToolRepository;
import io.modelcontextprotocol.modern.server.feature.ToolsFeature;
import io.modelcontextprotocol.modern.server.feature.ToolsPage;
import io.modelcontextprotocol.modern.server.transport.HttpServletMcpTransport;
import io.modelcontextprotocol.modern.server.transport.StdioMcpTransport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jetty.server.Server;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A test server of MCP tasks and multi round-trip input, with tasks kept in a file (see {@link
 * TaskBook} for the tools). Over stdio ({@code main}) in 2026-07-28 (the tasks extension {@code
 * io.modelcontextprotocol/tasks}, declared in {@code server/discover}) or, with {@code
 * --protocol=2025-11-25}, the experimental tasks of 2025-11-25 ({@code capabilities.tasks}, {@code
 * execution.taskSupport}, {@code params.task}, {@code tasks/result}); or Streamable HTTP 2026-07-28
 * on Jetty ({@link #http}). Flags: {@code --state=FILE} (the tasks, required), {@code
 * --events=FILE} (one JSON line per call and task operation, required), {@code --log=FILE} (every
 * line read from stdin).
 */
public final class TaskTestServer implements AutoCloseable {
  static final String TASKS = "io.modelcontextprotocol/tasks";
  private static final String CAPS = "io.modelcontextprotocol/clientCapabilities";
  private static final ObjectMapper JSON = Jackson.mapper();

  private final Server jetty;
  private final URI url;
  private final List<String> requests;

  private TaskTestServer(Server jetty, URI url, List<String> requests) {
    this.jetty = jetty;
    this.url = url;
    this.requests = requests;
  }

  public static void main(String[] args) throws Exception {
    List<String> flags = List.of(args);
    Path state = Path.of(flag(flags, "--state=").orElseThrow());
    Path events = Path.of(flag(flags, "--events=").orElseThrow());
    Optional<Path> log = flag(flags, "--log=").map(Path::of);
    TaskBook book = new TaskBook(state, events);
    InputStream in = new HaltAtEof(log.isPresent() ? new LineLog(System.in, log.get()) : System.in);
    if (flag(flags, "--protocol=").filter(TaskBook.McpRevision.LEGACY::equals).isPresent()) {
      new Legacy(book, System.out).serve(in);
      Runtime.getRuntime().halt(0);
    }
    StdioMcpTransport transport =
        new StdioMcpTransport(new Modern(book), McpJsonDefaults.getMapper(), in, System.out);
    transport.start().block();
    Thread.sleep(Long.MAX_VALUE);
  }

  /** 2026-07-28 over Streamable HTTP on 127.0.0.1, a free port, tasks kept in {@code state}. */
  public static TaskTestServer http(Path state, Path events) throws Exception {
    HttpServletMcpTransport transport =
        HttpServletMcpTransport.builder(new Modern(new TaskBook(state, events)))
            .jsonMapper(McpJsonDefaults.getMapper())
            .endpoint("/mcp")
            .build();
    List<String> requests = new java.util.concurrent.CopyOnWriteArrayList<>();
    jakarta.servlet.Filter watch =
        (req, res, chain) -> {
          jakarta.servlet.http.HttpServletRequest r = (jakarta.servlet.http.HttpServletRequest) req;
          requests.add(r.getHeader("Mcp-Method") + " " + r.getHeader("Mcp-Name"));
          chain.doFilter(req, res);
        };
    Server jetty = McpJetty.start(transport, 0, Optional.of(watch));
    return new TaskTestServer(
        jetty, URI.create("http://127.0.0.1:" + McpJetty.port(jetty) + "/mcp"), requests);
  }

  /** {@code "Mcp-Method Mcp-Name"} of every request received over HTTP. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  public URI url() {
    return url;
  }

  @Override
  public void close() throws Exception {
    jetty.stop();
  }

  private static Optional<String> flag(List<String> flags, String prefix) {
    return flags.stream()
        .filter(a -> a.startsWith(prefix))
        .map(a -> a.substring(prefix.length()))
        .findFirst();
  }

  /**
   * 2026-07-28: the SDK's stateless server answers {@code server/discover} (declaring the tasks
   * extension) and {@code tools/list}; calls and task methods are answered from the book, since the
   * SDK has no tasks.
   */
  private static final class Modern implements McpRequestManager {
    private final TaskBook book;
    private final McpServer sdk;

    Modern(TaskBook book) {
      this.book = book;
      List<McpSyncTool> tools =
          TaskBook.tools().stream()
              .map(
                  t ->
                      McpSyncTool.of(
                          McpSchema.Tool.builder(t.name(), t.inputSchema())
                              .description(t.name() + " task test tool")
                              .build(),
                          (ctx, req) -> {
                            throw new IllegalStateException("answered by the task book");
                          }))
              .toList();
      McpSyncToolRepository repository =
          new McpSyncToolRepository() {
            @Override
            public ToolsPage list(McpRequestContext ctx, String cursor) {
              return ToolsPage.of(tools.stream().map(McpSyncTool::definition).toList());
            }

            @Override
            public McpSyncTool find(McpRequestContext ctx, String name) {
              return tools.stream()
                  .filter(t -> t.definition().name().equals(name))
                  .findFirst()
                  .orElse(null);
            }
          };
      McpFeature tasks =
          new McpFeature() {
            @Override
            public Set<String> methods() {
              return Set.of("tasks/get", "tasks/update", "tasks/cancel");
            }

            @Override
            public Mono<? extends McpAsyncResponse<? extends McpSchema.Result>> handle(
                McpRequestContext ctx, Object params) {
              return Mono.error(new IllegalStateException("answered by the task book"));
            }

            @Override
            public void capabilities(McpSchema.ServerCapabilities.Builder b) {
              b.extension(TASKS, Map.of());
            }
          };
      this.sdk =
          McpServer.builder()
              .serverInfo(McpSchema.Implementation.builder("flows-test-tasks", "1.0").build())
              .feature(ToolsFeature.ofSync(repository))
              .feature(tasks)
              .build();
    }

    @Override
    public Mono<McpTransportResponse> handle(
        McpTransportContext ctx, JsonRpc.JSONRPCRequest request) {
      return ours(request).orElseGet(() -> sdk.handle(ctx, request));
    }

    @Override
    public Mono<McpTransportResponse> handleBlocking(
        McpTransportContext ctx, JsonRpc.JSONRPCRequest request) {
      return ours(request).orElseGet(() -> sdk.handleBlocking(ctx, request));
    }

    @Override
    public Mono<Void> handleNotification(
        McpTransportContext ctx, JsonRpc.JSONRPCNotification notification) {
      return sdk.handleNotification(ctx, notification);
    }

    private Optional<Mono<McpTransportResponse>> ours(JsonRpc.JSONRPCRequest request) {
      String m = request.method();
      if (!Set.of("tools/call", "tasks/get", "tasks/update", "tasks/cancel").contains(m)) {
        return Optional.empty();
      }
      JsonNode params = JSON.valueToTree(request.params());
      return Optional.of(
          Mono.fromCallable(() -> respond(request.id(), answer(m, params)))
              .subscribeOn(Schedulers.boundedElastic()));
    }

    private TaskBook.Answer answer(String method, JsonNode params) throws IOException {
      String taskId = params.path("taskId").asText();
      String rev = TaskBook.McpRevision.MODERN;
      return switch (method) {
        case "tools/call" ->
            book.call(params, params.path("_meta").path(CAPS).path("extensions").has(TASKS), rev);
        case "tasks/get" ->
            book.get(taskId, rev)
                .<TaskBook.Answer>map(
                    v -> new TaskBook.Answer.Result(v.put("resultType", "complete")))
                .orElse(new TaskBook.Answer.Error(-32602, "unknown task " + taskId));
        case "tasks/update" ->
            book.update(taskId, params.path("inputResponses")).orElse(complete());
        case "tasks/cancel" ->
            switch (book.cancel(taskId, rev)) {
              case TaskBook.Answer.Result r -> complete();
              case TaskBook.Answer.Error e -> e;
            };
        default -> new TaskBook.Answer.Error(-32601, "no method " + method);
      };
    }

    private static TaskBook.Answer complete() {
      return new TaskBook.Answer.Result(
          JsonNodeFactory.instance.objectNode().put("resultType", "complete"));
    }

    private static McpTransportResponse respond(Object id, TaskBook.Answer a) {
      return switch (a) {
        case TaskBook.Answer.Result r ->
            McpTransportResponse.result(
                JsonRpc.JSONRPCResponse.result(id, JSON.convertValue(r.result(), Map.class)));
        case TaskBook.Answer.Error e ->
            McpTransportResponse.error(
                JsonRpc.JSONRPCResponse.error(
                    id, new JsonRpc.JSONRPCResponse.JSONRPCError(e.code(), e.message())));
      };
    }
  }

  /**
   * 2025-11-25 over stdio, written out by hand: the SDK's session server knows neither {@code
   * capabilities.tasks} nor {@code execution.taskSupport}. Each request is answered on its own
   * thread ({@code tasks/result} blocks until the task ends).
   */
  private static final class Legacy {
    private final TaskBook book;
    private final PrintStream out;

    Legacy(TaskBook book, PrintStream out) {
      this.book = book;
      this.out = out;
    }

    void serve(InputStream in) throws IOException {
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      String line;
      while ((line = r.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode msg = JSON.readTree(line);
        if (!msg.has("id") || !msg.has("method")) {
          continue;
        }
        Thread.ofVirtual().start(() -> answer(msg));
      }
    }

    private void answer(JsonNode msg) {
      JsonNode params = msg.path("params");
      String taskId = params.path("taskId").asText();
      String rev = TaskBook.McpRevision.LEGACY;
      ObjectNode reply = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
      reply.set("id", msg.get("id"));
      try {
        TaskBook.Answer a =
            switch (msg.path("method").asText()) {
              case "initialize" -> new TaskBook.Answer.Result(initialize());
              case "ping" -> new TaskBook.Answer.Result(JsonNodeFactory.instance.objectNode());
              case "tools/list" -> new TaskBook.Answer.Result(tools());
              case "tools/call" -> book.call(params, params.has("task"), rev);
              case "tasks/get" ->
                  book.get(taskId, rev)
                      .<TaskBook.Answer>map(TaskBook.Answer.Result::new)
                      .orElse(new TaskBook.Answer.Error(-32602, "unknown task " + taskId));
              case "tasks/result" -> awaitResult(taskId);
              case "tasks/cancel" -> book.cancel(taskId, rev);
              default -> new TaskBook.Answer.Error(-32601, "no method " + msg.path("method"));
            };
        switch (a) {
          case TaskBook.Answer.Result r -> reply.set("result", r.result());
          case TaskBook.Answer.Error e ->
              reply.putObject("error").put("code", e.code()).put("message", e.message());
        }
      } catch (IOException e) {
        reply.putObject("error").put("code", -32603).put("message", e.toString());
      }
      synchronized (out) {
        out.println(reply);
        out.flush();
      }
    }

    private TaskBook.Answer awaitResult(String taskId) throws IOException {
      while (true) {
        Optional<TaskBook.Answer> a = book.result(taskId);
        if (a.isPresent()) {
          return a.get();
        }
        try {
          Thread.sleep(TaskBook.POLL_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return new TaskBook.Answer.Error(-32603, "interrupted");
        }
      }
    }

    private static ObjectNode initialize() {
      ObjectNode r = JsonNodeFactory.instance.objectNode().put("protocolVersion", "2025-11-25");
      ObjectNode caps = r.putObject("capabilities");
      caps.putObject("tools");
      ObjectNode tasks = caps.putObject("tasks");
      tasks.putObject("cancel");
      tasks.putObject("requests").putObject("tools").putObject("call");
      r.putObject("serverInfo").put("name", "flows-test-tasks-2025").put("version", "1.0");
      return r;
    }

    private static ObjectNode tools() {
      ObjectNode r = JsonNodeFactory.instance.objectNode();
      ArrayNode list = r.putArray("tools");
      for (TaskBook.ToolDef t : TaskBook.tools()) {
        ObjectNode n = list.addObject().put("name", t.name());
        n.set("inputSchema", JSON.valueToTree(t.inputSchema()));
        t.taskSupport().ifPresent(s -> n.putObject("execution").put("taskSupport", s));
      }
      return r;
    }
  }
}
