package dev.flows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.flows.embed.McpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An MCP server written in the test ({@link FlowsTestEnvironment#mcpServer(String)}): a real
 * Streamable HTTP endpoint on 127.0.0.1 (a free port) that answers {@code initialize}, {@code
 * tools/list} with the tools declared here and {@code tools/call} with their handlers, so the
 * engine talks to it as to any server. Each tool records the arguments of every call it performed
 * ({@link FakeTool#calls()}), also those whose answer the server then lost.
 */
public final class FakeMcpServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The MCP revision this server answers in (the client supports it). */
  static final String PROTOCOL_VERSION = "2025-11-25";

  private final String name;
  private final HttpServer http;
  private final ExecutorService threads;
  private final Map<String, FakeTool> tools = new ConcurrentHashMap<>();
  private final Set<String> sessions = ConcurrentHashMap.newKeySet();
  private final AtomicInteger counter = new AtomicInteger();
  private volatile boolean honoursKeys;

  FakeMcpServer(String name) {
    this.name = name;
    try {
      http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("the fake MCP server " + name + " did not start", e);
    }
    threads = Executors.newCachedThreadPool(r -> Thread.ofPlatform().daemon().unstarted(r));
    http.setExecutor(threads);
    http.createContext("/mcp", this::serve);
    http.start();
  }

  /** The server's name, as flows name it in {@code f.mcp(name)}. */
  public String name() {
    return name;
  }

  /** Where it listens: {@code http://127.0.0.1:PORT/mcp}. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/mcp");
  }

  /**
   * Declares (or replaces) tool {@code tool}: a call answers {@code handler}'s value as the
   * result's {@code structuredContent} (a JsonNode, a record, a Map, ...) and its JSON as text; a
   * {@link ToolFailure} thrown by the handler answers an {@code isError} result with its message.
   */
  public FakeTool tool(String tool, Function<JsonNode, ?> handler) {
    FakeTool t = new FakeTool(tool, handler);
    tools.put(tool, t);
    return t;
  }

  /** A tool declared before: to read its calls or change how it answers. */
  public FakeTool tool(String tool) {
    FakeTool t = tools.get(tool);
    if (t == null) {
      throw new IllegalArgumentException(
          "the fake server " + name + " has no tool " + tool + "; declare it with tool(name, fn)");
    }
    return t;
  }

  /**
   * Declares that this server answers a repeated idempotency key with the first call's result (as
   * flows.json's {@code "idempotencyKeys": true}): a call whose outcome was lost is then sent again
   * with the same key instead of parking. The fake itself performs every call it receives.
   */
  public FakeMcpServer honouringIdempotencyKeys() {
    honoursKeys = true;
    return this;
  }

  /** How the engine reaches this server. */
  McpServer config() {
    McpServer s = McpServer.http(name, url());
    return honoursKeys ? s.honouringIdempotencyKeys() : s;
  }

  private void serve(HttpExchange ex) throws IOException {
    try {
      switch (ex.getRequestMethod()) {
        case "POST" -> post(ex);
        case "DELETE" -> answer(ex, 200, Map.of(), "");
        default -> answer(ex, 405, Map.of(), "");
      }
    } catch (RuntimeException e) {
      answer(ex, 500, Map.of(), "");
    }
  }

  private void post(HttpExchange ex) throws IOException {
    JsonNode msg = JSON.readTree(ex.getRequestBody().readAllBytes());
    String method = msg.path("method").asText("");
    if (!msg.has("id")) {
      answer(ex, 202, Map.of(), "");
      return;
    }
    JsonNode id = msg.get("id");
    if (method.equals("initialize")) {
      String session = name + "-" + counter.incrementAndGet();
      sessions.add(session);
      ObjectNode result = JSON.createObjectNode();
      result.put("protocolVersion", PROTOCOL_VERSION);
      result.putObject("capabilities").putObject("tools").put("listChanged", false);
      result.putObject("serverInfo").put("name", name).put("version", "test");
      result(ex, Map.of("Mcp-Session-Id", session), id, result);
      return;
    }
    String session = ex.getRequestHeaders().getFirst("Mcp-Session-Id");
    if (session == null || !sessions.contains(session)) {
      answer(ex, 404, Map.of(), "");
      return;
    }
    switch (method) {
      case "tools/list" -> result(ex, Map.of(), id, list());
      case "tools/call" -> call(ex, id, msg.path("params"));
      default -> result(ex, Map.of(), id, JSON.createObjectNode());
    }
  }

  private ObjectNode list() {
    ObjectNode page = JSON.createObjectNode();
    var array = page.putArray("tools");
    tools.values().stream()
        .sorted(java.util.Comparator.comparing(FakeTool::name))
        .forEach(t -> array.add(t.descriptor()));
    return page;
  }

  private void call(HttpExchange ex, JsonNode id, JsonNode params) throws IOException {
    FakeTool t = tools.get(params.path("name").asText());
    if (t == null) {
      ObjectNode error = JSON.createObjectNode();
      error.put("code", -32602).put("message", "unknown tool " + params.path("name").asText());
      ObjectNode r = JSON.createObjectNode().put("jsonrpc", "2.0");
      r.set("id", id);
      r.set("error", error);
      answer(ex, 200, Map.of("Content-Type", "application/json"), JSON.writeValueAsString(r));
      return;
    }
    FakeTool.Answer a = t.perform(params.path("arguments"), params.path("_meta"));
    switch (a) {
      case FakeTool.Answer.Lost lost -> ex.close(); // performed, then the connection dropped
      case FakeTool.Answer.Result r -> result(ex, Map.of(), id, r.result());
    }
  }

  private static void result(
      HttpExchange ex, Map<String, String> headers, JsonNode id, JsonNode result)
      throws IOException {
    ObjectNode r = JSON.createObjectNode().put("jsonrpc", "2.0");
    r.set("id", id);
    r.set("result", result);
    Map<String, String> h = new java.util.HashMap<>(headers);
    h.put("Content-Type", "application/json");
    answer(ex, 200, h, JSON.writeValueAsString(r));
  }

  private static void answer(HttpExchange ex, int status, Map<String, String> headers, String body)
      throws IOException {
    headers.forEach((k, v) -> ex.getResponseHeaders().add(k, v));
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
    if (b.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    }
    ex.close();
  }

  /** Every tool's calls, by tool name. */
  public Map<String, List<JsonNode>> calls() {
    Map<String, List<JsonNode>> all = new java.util.TreeMap<>();
    tools.forEach((n, t) -> all.put(n, t.calls()));
    return all;
  }

  @Override
  public void close() {
    http.stop(0);
    threads.shutdownNow();
  }
}
