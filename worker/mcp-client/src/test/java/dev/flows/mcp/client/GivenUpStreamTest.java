package dev.flows.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A 2025 call given up at its timeout while its SSE answer, which carried event ids, is still open:
 * its stream is closed and never resumed with GET, so a given-up call asks nothing more of the
 * server.
 */
class GivenUpStreamTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

  private final AtomicInteger resumptions = new AtomicInteger();
  private final AtomicInteger streamsOpen = new AtomicInteger();
  private HttpServer server;
  private McpConnection connection;

  @AfterEach
  void stop() {
    if (connection != null) {
      connection.stop();
    }
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void aCallGivenUpWhileItsSseAnswerCarriedEventIdsIsNeverResumedWithGet() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/mcp", this::exchange);
    server.start();
    URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/mcp");
    McpClientConfig limits =
        McpClientConfig.DEFAULTS.withStopGrace(Duration.ofSeconds(1)).withCallTimeout(CALL_TIMEOUT);
    connection =
        McpTestSupport.connection(
            new McpServerConfig.Http(
                "ids", url, Map.of(), new McpAuth.None(), McpProtocol.V2025_11_25),
            limits);
    McpTestSupport.get(connection.connect());

    assertThat(McpTestSupport.diagnosticOf(connection.callTool("stream", Map.of(), Map.of())))
        .isEqualTo(McpDiagnostic.MCP_RESULT_UNAVAILABLE);
    long start = System.nanoTime();
    while (streamsOpen.get() > 0 && System.nanoTime() - start < Duration.ofSeconds(15).toNanos()) {
      Thread.sleep(50);
    }
    assertThat(streamsOpen).as("the given-up answer's stream is closed").hasValue(0);
    // Past the client's longest pause before a resumption (the server's retry: of 100 ms, or its
    // own backoff's first step).
    Thread.sleep(limits.backoff(1, 1.0).plusSeconds(2).toMillis());
    assertThat(resumptions).as("GETs resuming the given-up call's stream").hasValue(0);
  }

  private void exchange(HttpExchange ex) throws IOException {
    try (ex) {
      if (ex.getRequestMethod().equals("GET")) {
        if (ex.getRequestHeaders().containsKey("Last-Event-ID")) {
          resumptions.incrementAndGet();
        }
        ex.sendResponseHeaders(405, -1);
        return;
      }
      if (!ex.getRequestMethod().equals("POST")) {
        ex.sendResponseHeaders(405, -1);
        return;
      }
      JsonNode req = JSON.readTree(ex.getRequestBody());
      if (!req.has("id")) {
        ex.sendResponseHeaders(202, -1);
        return;
      }
      String head = "{\"jsonrpc\":\"2.0\",\"id\":" + JSON.writeValueAsString(req.get("id"));
      String result =
          switch (req.path("method").asText()) {
            case "initialize" ->
                ",\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
                    + "\"serverInfo\":{\"name\":\"ids\",\"version\":\"1\"}}}";
            case "tools/list" ->
                ",\"result\":{\"tools\":[{\"name\":\"stream\","
                    + "\"inputSchema\":{\"type\":\"object\"}}]}}";
            case "tools/call" -> "";
            default -> ",\"error\":{\"code\":-32601,\"message\":\"no such method\"}}";
          };
      if (!result.isEmpty()) {
        byte[] body = (head + result).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
        return;
      }
      ex.getResponseHeaders().set("Content-Type", "text/event-stream");
      ex.sendResponseHeaders(200, 0);
      streamsOpen.incrementAndGet();
      try {
        endless(ex.getResponseBody());
      } finally {
        streamsOpen.decrementAndGet();
      }
    }
  }

  /** Events with ids (a resumable stream), a short retry, then comments, never the answer. */
  private static void endless(OutputStream out) throws IOException {
    String note =
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
            + "\"params\":{\"level\":\"info\",\"data\":\"working\"}}";
    out.write(
        ("retry: 100\nid: e-1\nevent: message\ndata: " + note + "\n\n")
            .getBytes(StandardCharsets.UTF_8));
    out.flush();
    try {
      while (true) {
        out.write(": still here\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        Thread.sleep(200);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
