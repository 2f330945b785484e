package dev.flows.mcp.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.flows.kernel.mcp.McpServerConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;

/**
 * An MCP server (2025-11-25, hand-written so it can misbehave) whose tools each answer in one
 * hostile way: {@code huge} (a 200 MB text result, streamed, never held), {@code invalid} (a line
 * that is not JSON), {@code unsolicited} (an answer to a request never sent, then the real one),
 * {@code nested} (JSON nested 100,000 levels), {@code drip} (one byte a second, never finishing),
 * {@code endless} (over HTTP: a JSON body of blanks that never ends, or as {@code sse-endless} an
 * SSE stream of comments that never answers) and {@code echo} (a normal answer). Over stdio ({@link
 * #main}, flags {@code --tools=N} for N extra tools in tools/list, {@code --garbage} for lines of
 * garbage on stdout before the handshake, {@code --huge-discover} for a 200 MB answer to the {@code
 * server/discover} probe, {@code --modern} to answer that probe as a 2026-07-28 server, whose calls
 * are then answered the same way) or over HTTP ({@link #http}, the same answers as JSON, or as SSE
 * for tools whose name starts {@code sse-}; tool {@code headers} answers with 8 MiB of response
 * headers).
 */
public final class HostileServer {
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final long HUGE_BYTES = 200L << 20;
  public static final int NESTING = 100_000;
  private static final List<String> TOOLS =
      List.of(
          "huge",
          "invalid",
          "unsolicited",
          "nested",
          "drip",
          "endless",
          "echo",
          "sse-huge",
          "sse-endless",
          "sse-echo",
          "headers");

  private final int extraTools;
  private final boolean hugeDiscover;
  private final boolean modern;

  private HostileServer(int extraTools, boolean hugeDiscover, boolean modern) {
    this.extraTools = extraTools;
    this.hugeDiscover = hugeDiscover;
    this.modern = modern;
  }

  /** This server as a child JVM over stdio. */
  public static McpServerConfig.Stdio stdio(String name, String... flags) {
    McpServerConfig.Stdio s = Jvm.stdioServer(name, List.of(), Map.of());
    List<String> args = new java.util.ArrayList<>(s.args());
    int main = args.indexOf(StdioTestServer.class.getName());
    args.set(main, HostileServer.class.getName());
    args.addAll(main + 1, Arrays.asList(flags));
    return new McpServerConfig.Stdio(
        name, s.command(), args, List.of(), Map.of(), Optional.empty(), s.protocol());
  }

  public static void main(String[] args) throws IOException {
    int extra =
        Arrays.stream(args)
            .filter(a -> a.startsWith("--tools="))
            .mapToInt(a -> Integer.parseInt(a.substring(8)))
            .findFirst()
            .orElse(0);
    OutputStream out = System.out;
    if (Arrays.asList(args).contains("--garbage")) {
      out.write("Starting up... banner\nnot json {{{\n\u0000\u0001garbage\n".getBytes());
      out.flush();
    }
    HostileServer server =
        new HostileServer(
            extra,
            Arrays.asList(args).contains("--huge-discover"),
            Arrays.asList(args).contains("--modern"));
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      JsonNode req = JSON.readTree(line);
      if (req.has("id") && req.has("method")) {
        String id = JSON.writeValueAsString(req.get("id"));
        Thread.ofVirtual().start(() -> server.answerQuietly(req, id, out, false));
      }
    }
    Runtime.getRuntime().halt(0);
  }

  private void answerQuietly(JsonNode req, String id, OutputStream out, boolean sse) {
    try {
      synchronized (out) {
        answer(req, id, out, sse);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // The client went away or cut the answer off: that is what these tools are for.
    }
  }

  /** Writes the answer to one request, as one line (or one SSE event when {@code sse}). */
  private void answer(JsonNode req, String id, OutputStream out, boolean sse)
      throws IOException, InterruptedException {
    String method = req.path("method").asText();
    String start = (sse ? "event: message\ndata: " : "") + "{\"jsonrpc\":\"2.0\",\"id\":" + id;
    String end = sse ? "\n\n" : "\n";
    switch (method) {
      case "initialize" ->
          write(
              out,
              start
                  + ",\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
                  + "\"serverInfo\":{\"name\":\"hostile\",\"version\":\"1\"}}}"
                  + end);
      case "tools/list" -> listTools(out, start, end);
      case "tools/call" -> call(req.path("params").path("name").asText(), out, start, end, sse);
      case "server/discover" -> {
        if (hugeDiscover) {
          call("huge", out, start, end, sse);
        } else if (modern) {
          write(
              out,
              start
                  + ",\"result\":{\"supportedVersions\":[\"2026-07-28\"],"
                  + "\"capabilities\":{\"tools\":{}},"
                  + "\"serverInfo\":{\"name\":\"hostile\",\"version\":\"1\"}}}"
                  + end);
        } else {
          write(
              out, start + ",\"error\":{\"code\":-32601,\"message\":\"no " + method + "\"}}" + end);
        }
      }
      default ->
          write(
              out, start + ",\"error\":{\"code\":-32601,\"message\":\"no " + method + "\"}}" + end);
    }
  }

  private void listTools(OutputStream out, String start, String end) throws IOException {
    write(out, start + ",\"result\":{\"tools\":[");
    for (int i = 0; i < TOOLS.size() + extraTools; i++) {
      String name = i < TOOLS.size() ? TOOLS.get(i) : "filler_" + i;
      write(
          out,
          (i == 0 ? "" : ",")
              + "{\"name\":\""
              + name
              + "\",\"inputSchema\":{\"type\":\"object\"}}");
    }
    write(out, "]}}" + end);
  }

  private static void call(String tool, OutputStream out, String start, String end, boolean sse)
      throws IOException, InterruptedException {
    String text = ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"";
    switch (tool.startsWith("sse-") ? tool.substring(4) : tool) {
      case "huge" -> {
        write(out, start + text);
        byte[] chunk = new byte[64 * 1024];
        Arrays.fill(chunk, (byte) 'x');
        for (long sent = 0; sent < HUGE_BYTES; sent += chunk.length) {
          out.write(chunk);
        }
        write(out, "\"}]}}" + end);
      }
      case "invalid" -> write(out, start + ",\"result\":{oops, not json" + end);
      case "unsolicited" -> {
        String never =
            (sse ? "event: message\ndata: " : "") + "{\"jsonrpc\":\"2.0\",\"id\":\"n-1\"";
        write(out, never + text + "for nobody\"}]}}" + end);
        write(out, start + text + "after\"}]}}" + end);
      }
      case "nested" ->
          write(
              out, start + ",\"result\":" + "[".repeat(NESTING) + "]".repeat(NESTING) + "}" + end);
      case "drip" -> {
        for (byte b : (start + text + "slow\"}]}}" + end).getBytes(StandardCharsets.UTF_8)) {
          out.write(b);
          out.flush();
          Thread.sleep(1000);
        }
      }
      case "endless" -> {
        while (true) {
          write(out, sse ? ": still here\n\n" : " ");
          out.flush();
          Thread.sleep(200);
        }
      }
      default -> write(out, start + text + "pong\"}]}}" + end);
    }
  }

  private static void write(OutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * A running HTTP endpoint of this server; {@code answering} counts the answers it is writing (an
   * endless one ends when the client closes its connection).
   */
  public record Http(
      HttpServer server, URI url, java.util.concurrent.atomic.AtomicInteger answering)
      implements AutoCloseable {
    @Override
    public void close() {
      server.stop(0);
    }
  }

  /** This server over Streamable HTTP on 127.0.0.1, a free port, path {@code /mcp}. */
  public static Http http(int extraTools) throws IOException {
    return http(extraTools, false);
  }

  /** As {@link #http(int)}; {@code modern} answers {@code server/discover} as 2026-07-28. */
  public static Http http(int extraTools, boolean modern) throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    HostileServer server = new HostileServer(extraTools, false, modern);
    java.util.concurrent.atomic.AtomicInteger answering =
        new java.util.concurrent.atomic.AtomicInteger();
    http.createContext(
        "/mcp",
        ex -> {
          answering.incrementAndGet();
          try {
            server.exchange(ex);
          } finally {
            answering.decrementAndGet();
          }
        });
    http.start();
    return new Http(
        http, URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/mcp"), answering);
  }

  private void exchange(HttpExchange ex) throws IOException {
    try (ex) {
      if (!"POST".equals(ex.getRequestMethod())) {
        ex.sendResponseHeaders(405, -1);
        return;
      }
      JsonNode req = JSON.readTree(ex.getRequestBody());
      if (!req.has("id")) {
        ex.sendResponseHeaders(202, -1);
        return;
      }
      String tool = req.path("params").path("name").asText();
      boolean sse = tool.startsWith("sse-");
      if (tool.equals("headers")) {
        // 8 MiB of response headers, more than any client should hold for one answer.
        String junk = "x".repeat(64 * 1024);
        for (int i = 0; i < 128; i++) {
          ex.getResponseHeaders().add("X-Junk-" + i, junk);
        }
      }
      ex.getResponseHeaders().set("Content-Type", sse ? "text/event-stream" : "application/json");
      ex.sendResponseHeaders(200, 0);
      answerQuietly(req, JSON.writeValueAsString(req.get("id")), ex.getResponseBody(), sse);
    }
  }
}
