package dev.flows.examples.servers;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** SDK clients for the example servers, as the tests drive them. */
public final class Clients {
  /** Generous: two shared cores, and a child JVM starting cold. */
  public static final Duration TIMEOUT = Duration.ofSeconds(60);

  private Clients() {}

  public static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  /** JVM arguments that run {@code mainClass} on this test's class path, started quickly. */
  public static List<String> jvmArgs(Class<?> mainClass) {
    return List.of(
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-cp",
        System.getProperty("java.class.path"),
        mainClass.getName());
  }

  public static McpSyncClient stdio(String command, List<String> args, Map<String, String> env) {
    ServerParameters params = ServerParameters.builder(command).args(args).env(env).build();
    return connect(new StdioClientTransport(params, McpJsonDefaults.getMapper()));
  }

  public static McpSyncClient tickets() {
    return stdio(java(), jvmArgs(TicketsServer.class), Map.of());
  }

  public static McpSyncClient http(URI endpoint, String token) {
    return http(endpoint, Optional.of(token));
  }

  public static McpSyncClient http(URI endpoint, Optional<String> token) {
    HttpClientStreamableHttpTransport.Builder b =
        HttpClientStreamableHttpTransport.builder(
                endpoint.getScheme() + "://" + endpoint.getAuthority())
            .endpoint(endpoint.getPath())
            .connectTimeout(TIMEOUT);
    token.ifPresent(
        t ->
            b.httpRequestCustomizer(
                (req, method, uri, body, ctx) -> req.header("Authorization", "Bearer " + t)));
    return connect(b.build());
  }

  private static McpSyncClient connect(McpClientTransport t) {
    McpSyncClient c =
        McpClient.sync(t)
            .requestTimeout(TIMEOUT)
            .initializationTimeout(TIMEOUT)
            .clientInfo(new McpSchema.Implementation("flows-examples-test", "1"))
            .build();
    c.initialize();
    return c;
  }

  public static CallToolResult call(McpSyncClient c, String tool, Map<String, Object> args) {
    return c.callTool(new CallToolRequest(tool, args));
  }

  public static CallToolResult callWithKey(
      McpSyncClient c, String tool, Map<String, Object> args, String metaName, String key) {
    return c.callTool(
        CallToolRequest.builder().name(tool).arguments(args).meta(Map.of(metaName, key)).build());
  }

  public static JsonNode structured(CallToolResult r) {
    if (Boolean.TRUE.equals(r.isError())) {
      throw new AssertionError("tool answered an error: " + text(r));
    }
    return ToolKit.JSON.valueToTree(r.structuredContent());
  }

  public static String text(CallToolResult r) {
    return r.content().stream()
        .filter(McpSchema.TextContent.class::isInstance)
        .map(c -> ((McpSchema.TextContent) c).text())
        .reduce("", (a, b) -> a + b);
  }

  public static McpSchema.Tool tool(McpSyncClient c, String name) {
    return c.listTools().tools().stream()
        .filter(t -> t.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no tool " + name));
  }

  /** The names in the tool's input schema's {@code required}. */
  public static List<String> required(McpSchema.Tool t) {
    List<String> out = new ArrayList<>();
    ToolKit.JSON.valueToTree(t.inputSchema()).path("required").forEach(n -> out.add(n.asText()));
    return out;
  }

  /** The tool's input schema's property names. */
  public static List<String> properties(McpSchema.Tool t) {
    List<String> out = new ArrayList<>();
    ToolKit.JSON
        .valueToTree(t.inputSchema())
        .path("properties")
        .fieldNames()
        .forEachRemaining(out::add);
    return out;
  }
}
