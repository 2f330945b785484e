package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.FlowsConfigLoader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PreflightConnectTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(3);
  private static HttpServer http;

  @BeforeAll
  static void statusServer() throws IOException {
    http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext(
        "/503",
        ex -> {
          ex.sendResponseHeaders(503, -1);
          ex.close();
        });
    http.createContext(
        "/401",
        ex -> {
          ex.getResponseHeaders().add("WWW-Authenticate", "Bearer realm=\"test\"");
          ex.sendResponseHeaders(401, -1);
          ex.close();
        });
    http.start();
  }

  @AfterAll
  static void stop() {
    http.stop(0);
  }

  private static String base() {
    return "http://127.0.0.1:" + http.getAddress().getPort();
  }

  private static FlowsConfig config(String servers) {
    return FlowsConfigLoader.parse(Path.of("/t/flows.json"), "{\"mcp\": {" + servers + "}}");
  }

  private static String stdioServerJson(String name) {
    var s = McpServerConfigJson.write(Jvm.stdioServer(name, List.of(), Map.of()));
    StringBuilder args = new StringBuilder("[");
    s.path("args").forEach(a -> args.append(args.length() > 1 ? "," : "").append(a.toString()));
    return "\"" + name + "\": {\"command\": " + s.path("command") + ", \"args\": " + args + "]}";
  }

  @Test
  void aReachableServerIsListedAndItsToolsHintsAndSchemasFrozen() {
    FlowsConfig c = config(stdioServerJson("tools"));
    Inventory inv =
        Preflight.connect(
            FlowHeader.named("f").mcp("tools").build(),
            c,
            Duration.ofSeconds(30),
            McpCredentials.fromEnvironment());
    assertThat(inv.tools("tools")).contains("echo", "noop", "meta");
    assertThat(inv.mayReperform("tools", "echo")).as("echo is annotated idempotent").isTrue();
    assertThat(inv.mayReperform("tools", "noop")).isFalse();
    assertThat(inv.connection("tools")).isPresent();
    assertThat(inv.protocolVersion("tools")).contains("2025-11-25");
    Inventory.Tool echo = inv.tool("tools", "echo").orElseThrow();
    assertThat(echo.description()).isEqualTo("echo test tool");
    assertThat(echo.inputSchema().path("required").toString()).isEqualTo("[\"text\"]");
    assertThat(echo.inputSchema().path("properties").path("text").path("type").asText())
        .isEqualTo("string");
  }

  @Test
  void everyUnreachableServerIsReportedAtOnceWithItsCause() {
    FlowsConfig c =
        config(
            "\"badcmd\": {\"command\": \"/nonexistent/mcp-server\"},"
                + "\"hang\": {\"command\": \"/bin/sleep\", \"args\": [\"30\"]},"
                + "\"refused\": {\"url\": \"http://127.0.0.1:1/mcp\"},"
                + "\"unavailable\": {\"url\": \""
                + base()
                + "/503\"},"
                + "\"unauthorized\": {\"url\": \""
                + base()
                + "/401\"}");
    FlowHeader h =
        FlowHeader.named("f")
            .mcp("badcmd", "hang", "refused", "unavailable", "unauthorized")
            .build();
    assertThatThrownBy(() -> Preflight.connect(h, c, TIMEOUT, McpCredentials.fromEnvironment()))
        .isInstanceOfSatisfying(
            PreflightException.class,
            e -> {
              assertThat(e.problems()).hasSize(5);
              assertThat(e.problems())
                  .extracting(FlowsException::code)
                  .containsOnly(ErrorCode.MCP_UNREACHABLE);
              Map<String, McpDiagnostic> causes =
                  e.problems().stream()
                      .map(p -> (McpUnreachableException) p)
                      .collect(
                          Collectors.toMap(
                              McpUnreachableException::server,
                              McpUnreachableException::unreachableCause));
              assertThat(causes.get("badcmd")).isEqualTo(McpDiagnostic.SPAWN_FAILED);
              assertThat(causes.get("hang")).isEqualTo(McpDiagnostic.HANDSHAKE_TIMEOUT);
              assertThat(causes.get("refused"))
                  .isIn(McpDiagnostic.MCP_DISCONNECTED, McpDiagnostic.HANDSHAKE_REJECTED);
              assertThat(causes.get("unavailable")).isEqualTo(McpDiagnostic.HANDSHAKE_REJECTED);
              assertThat(causes.get("unauthorized")).isEqualTo(McpDiagnostic.AUTH_FAILED);
              assertThat(e.problems()).allSatisfy(p -> assertThat(p.fix()).isPresent());
            });
  }

  @Test
  void aHeaderServerMissingFromFlowsJsonIsRefusedBeforeConnecting() {
    assertThatThrownBy(
            () ->
                Preflight.connect(
                    FlowHeader.named("f").mcp("ghost").build(),
                    config(""),
                    TIMEOUT,
                    McpCredentials.fromEnvironment()))
        .isInstanceOfSatisfying(
            PreflightException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.MCP_UNDECLARED_SERVER));
  }
}
