package dev.flows.mcp.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hand-written MCP endpoint for what SDK servers cannot be made to do: drop an SSE answer after a
 * priming event (with {@code retry:}) and replay it on GET with Last-Event-ID, expire sessions,
 * paginate tools/list (also with a repeated cursor), redirect, and gate requests for auth tests.
 * Extra routes (OAuth metadata, token endpoints) are added by the tests.
 */
public final class FaultServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One request as seen. */
  public record Seen(
      String method, String path, Map<String, String> headers, String body, long nanos) {
    public Optional<String> header(String name) {
      return Optional.ofNullable(headers.get(name.toLowerCase(java.util.Locale.ROOT)));
    }
  }

  /** A gate answers instead of the endpoint when it returns a status. */
  public interface Gate {
    Optional<Answer> check(Seen request);
  }

  public record Answer(int status, Map<String, String> headers, String body) {}

  public enum ListMode {
    ONE_PAGE,
    TWO_PAGES,
    REPEATED_CURSOR
  }

  public enum CallMode {
    JSON,
    /** SSE: priming event with id and retry, then the connection is closed; replay on GET. */
    DROP_THEN_REPLAY,
    /** SSE: priming event, then closed; GET is refused with 405. */
    DROP_NO_RESUME
  }

  private final HttpServer http;
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final Set<String> sessions = ConcurrentHashMap.newKeySet();
  private final Map<String, String> replay = new ConcurrentHashMap<>();
  private final AtomicInteger counter = new AtomicInteger();
  public volatile ListMode listMode = ListMode.ONE_PAGE;
  public volatile CallMode callMode = CallMode.JSON;
  public volatile long retryMs = 300;
  public volatile Optional<String> redirectTo = Optional.empty();
  public volatile Gate gate = r -> Optional.empty();

  /** Closes the connection of the next tools/call without a byte of answer (a stale connection). */
  public volatile boolean hangUpNextCall;

  public FaultServer() throws IOException {
    http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.setExecutor(Executors.newCachedThreadPool(r -> Thread.ofPlatform().daemon().unstarted(r)));
    http.createContext("/mcp", this::mcp);
    http.start();
  }

  public URI url() {
    return base().resolve("/mcp");
  }

  public URI base() {
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
  }

  public List<Seen> requests() {
    return List.copyOf(seen);
  }

  /** Forgets every session: the next request with an old id gets 404. */
  public void expireSessions() {
    sessions.clear();
  }

  /** Adds a route; the handler gets what was seen and writes its own answer. */
  public void route(String path, java.util.function.Function<Seen, Answer> handler) {
    http.createContext(
        path,
        ex -> {
          Seen s = record(ex);
          answer(ex, handler.apply(s));
        });
  }

  private Seen record(HttpExchange ex) throws IOException {
    Map<String, String> h = new java.util.TreeMap<>();
    ex.getRequestHeaders()
        .forEach((k, v) -> h.put(k.toLowerCase(java.util.Locale.ROOT), v.getFirst()));
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String path = ex.getRequestURI().toString();
    Seen s = new Seen(ex.getRequestMethod(), path, Map.copyOf(h), body, System.nanoTime());
    seen.add(s);
    return s;
  }

  private static void answer(HttpExchange ex, Answer a) throws IOException {
    a.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
    byte[] b = a.body().getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(a.status(), b.length == 0 ? -1 : b.length);
    if (b.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    }
    ex.close();
  }

  private void mcp(HttpExchange ex) throws IOException {
    Seen s = record(ex);
    Optional<Answer> gated = gate.check(s);
    if (gated.isPresent()) {
      answer(ex, gated.get());
      return;
    }
    if (redirectTo.isPresent()) {
      answer(ex, new Answer(307, Map.of("Location", redirectTo.get()), ""));
      return;
    }
    switch (s.method()) {
      case "DELETE" -> answer(ex, new Answer(200, Map.of(), ""));
      case "GET" -> get(ex, s);
      case "POST" -> post(ex, s);
      default -> answer(ex, new Answer(405, Map.of(), ""));
    }
  }

  private void get(HttpExchange ex, Seen s) throws IOException {
    Optional<String> last = s.header("Last-Event-ID");
    if (last.isEmpty() || callMode == CallMode.DROP_NO_RESUME) {
      answer(ex, new Answer(405, Map.of(), ""));
      return;
    }
    String data = replay.remove(last.get());
    if (data == null) {
      answer(ex, new Answer(404, Map.of(), ""));
      return;
    }
    ex.getResponseHeaders().add("Content-Type", "text/event-stream");
    ex.sendResponseHeaders(200, 0);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(
          ("id: " + last.get() + "-r\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
    }
    ex.close();
  }

  private void post(HttpExchange ex, Seen s) throws IOException {
    JsonNode msg = JSON.readTree(s.body());
    String method = msg.path("method").asText("");
    if (!msg.has("id")) {
      answer(ex, new Answer(202, Map.of(), ""));
      return;
    }
    JsonNode id = msg.get("id");
    if (method.equals("initialize")) {
      String session = "s" + counter.incrementAndGet();
      sessions.add(session);
      ObjectNode result = JSON.createObjectNode();
      result.put(
          "protocolVersion", msg.path("params").path("protocolVersion").asText("2025-11-25"));
      result.putObject("capabilities").putObject("tools").put("listChanged", true);
      result.putObject("serverInfo").put("name", "fault").put("version", "1");
      json(ex, Map.of("Mcp-Session-Id", session), id, result);
      return;
    }
    if (!sessions.contains(s.header("Mcp-Session-Id").orElse(""))) {
      answer(ex, new Answer(404, Map.of(), ""));
      return;
    }
    switch (method) {
      case "tools/list" ->
          json(ex, Map.of(), id, listPage(msg.path("params").path("cursor").asText("")));
      case "tools/call" -> call(ex, id, msg.path("params"));
      default -> json(ex, Map.of(), id, JSON.createObjectNode());
    }
  }

  private ObjectNode listPage(String cursor) {
    ObjectNode page = JSON.createObjectNode();
    var tools = page.putArray("tools");
    String name = cursor.isEmpty() ? "echo" : "noop-" + cursor;
    ObjectNode t = tools.addObject();
    t.put("name", name);
    t.putObject("inputSchema").put("type", "object");
    switch (listMode) {
      case ONE_PAGE -> {}
      case TWO_PAGES -> {
        if (cursor.isEmpty()) {
          page.put("nextCursor", "p2");
        }
      }
      case REPEATED_CURSOR -> page.put("nextCursor", "again");
    }
    return page;
  }

  private void call(HttpExchange ex, JsonNode id, JsonNode params) throws IOException {
    if (hangUpNextCall) {
      hangUpNextCall = false;
      ex.close();
      return;
    }
    ObjectNode result = JSON.createObjectNode();
    result
        .putArray("content")
        .addObject()
        .put("type", "text")
        .put("text", "called " + params.path("name").asText());
    result.put("isError", false);
    if (callMode == CallMode.JSON) {
      json(ex, Map.of(), id, result);
      return;
    }
    String eventId = "e" + counter.incrementAndGet();
    ObjectNode response = JSON.createObjectNode();
    response.put("jsonrpc", "2.0");
    response.set("id", id);
    response.set("result", result);
    replay.put(eventId, JSON.writeValueAsString(response));
    ex.getResponseHeaders().add("Content-Type", "text/event-stream");
    ex.sendResponseHeaders(200, 0);
    OutputStream out = ex.getResponseBody();
    out.write(
        ("id: " + eventId + "\nretry: " + retryMs + "\ndata: \n\n")
            .getBytes(StandardCharsets.UTF_8));
    out.flush();
    out.close();
    ex.close();
  }

  private static void json(
      HttpExchange ex, Map<String, String> headers, JsonNode id, JsonNode result)
      throws IOException {
    ObjectNode r = JSON.createObjectNode();
    r.put("jsonrpc", "2.0");
    r.set("id", id);
    r.set("result", result);
    Map<String, String> h = new java.util.HashMap<>(headers);
    h.put("Content-Type", "application/json");
    answer(ex, new Answer(200, h, JSON.writeValueAsString(r)));
  }

  @Override
  public void close() {
    http.stop(0);
  }
}
