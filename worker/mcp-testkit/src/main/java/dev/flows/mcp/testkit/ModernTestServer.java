package dev.flows.mcp.testkit;

import dev.flows.kernel.mcp.McpTransportPort;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.modern.McpSchema;
import io.modelcontextprotocol.modern.server.McpRequestContext;
import io.modelcontextprotocol.modern.server.McpServer;
import io.modelcontextprotocol.modern.server.McpSyncResponse;
import io.modelcontextprotocol.modern.server.feature.McpSyncTool;
import io.modelcontextprotocol.modern.server.feature.McpSyncToolRepository;
import io.modelcontextprotocol.modern.server.feature.ToolsFeature;
import io.modelcontextprotocol.modern.server.feature.ToolsPage;
import io.modelcontextprotocol.modern.server.transport.HttpServletMcpTransport;
import io.modelcontextprotocol.modern.server.transport.StdioMcpTransport;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.server.Server;

/**
 * A test server on the SDK's 2026-07-28 ({@code modern}) server: stateless, answers {@code
 * server/discover}, no initialize. Over stdio ({@code main}, flags {@code --log=FILE} to record
 * every line it reads, {@code --ignore-sigterm} to ignore SIGTERM and stdin's end) or Streamable
 * HTTP on Jetty ({@link #http}). Tools: {@code echo}, {@code noop}, {@code add}, {@code sleep}
 * (ms), {@code pid}, {@code spawn_grandchild} (leaves a process behind, answers its pid), {@code
 * meta} (answers the request's {@code _meta}), and {@code ledger} (appends its idempotency key to
 * {@code file} once per key, the way a server that honours keys performs a call once; answers how
 * many lines the file has), and {@code region} (answers its {@code region} argument, which its
 * inputSchema marks {@code x-mcp-header: Region}, or the name {@link #renameRegionHeader} gives:
 * over HTTP the SDK's server refuses a call whose {@code Mcp-Param-} header is missing or does not
 * match).
 */
public final class ModernTestServer implements AutoCloseable {
  private static final String REQUEST = "flows.servlet-request";
  private static final String KEY = McpTransportPort.IDEMPOTENCY_KEY_META;

  private final Server jetty;
  private final URI url;
  private final McpServer mcp;
  private final List<String> calls;
  private final List<String> regionHeaders;
  private final Map<String, McpSyncTool> tools;
  private final ClosingWatch relay;

  private ModernTestServer(
      Server jetty,
      URI url,
      McpServer mcp,
      List<String> calls,
      List<String> regionHeaders,
      Map<String, McpSyncTool> tools,
      ClosingWatch relay) {
    this.jetty = jetty;
    this.url = url;
    this.mcp = mcp;
    this.calls = calls;
    this.regionHeaders = regionHeaders;
    this.tools = tools;
    this.relay = relay;
  }

  public static void main(String[] args) throws Exception {
    boolean deaf = Deafness.ignoreSigtermIf(List.of(args));
    Optional<Path> log =
        List.of(args).stream()
            .filter(a -> a.startsWith("--log="))
            .map(a -> Path.of(a.substring(6)))
            .findFirst();
    McpServer server = server(new AtomicInteger(), tools());
    java.io.InputStream source = log.isPresent() ? new LineLog(System.in, log.get()) : System.in;
    StdioMcpTransport transport =
        new StdioMcpTransport(
            server, McpJsonDefaults.getMapper(), deaf ? source : new HaltAtEof(source), System.out);
    transport.start().block();
    Thread.sleep(Long.MAX_VALUE);
  }

  /**
   * On 127.0.0.1, a free port. The first {@code dropResponses} ledger calls are performed and then
   * their connection is closed before the result is written: a response stream broken mid-call.
   */
  public static ModernTestServer http(int dropResponses) throws Exception {
    Map<String, McpSyncTool> tools = tools();
    McpServer mcp = server(new AtomicInteger(dropResponses), tools);
    HttpServletMcpTransport transport =
        HttpServletMcpTransport.builder(mcp)
            .jsonMapper(McpJsonDefaults.getMapper())
            .endpoint("/mcp")
            .contextExtractor(req -> McpTransportContext.create(Map.of(REQUEST, req)))
            .build();
    List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<String> regionHeaders = new java.util.concurrent.CopyOnWriteArrayList<>();
    jakarta.servlet.Filter watch =
        (req, res, chain) -> {
          HttpServletRequest r = (HttpServletRequest) req;
          calls.add(String.valueOf(r.getHeader("Mcp-Method")));
          if ("region".equals(r.getHeader("Mcp-Name"))) {
            List<String> params = new java.util.ArrayList<>();
            for (String h : java.util.Collections.list(r.getHeaderNames())) {
              if (h.regionMatches(true, 0, "Mcp-Param-", 0, 10)) {
                params.add(h.substring(10) + "=" + r.getHeader(h));
              }
            }
            regionHeaders.add(String.join(",", params));
          }
          chain.doFilter(req, res);
        };
    Server jetty = McpJetty.start(transport, 0, Optional.of(watch));
    ClosingWatch relay = new ClosingWatch(McpJetty.port(jetty));
    return new ModernTestServer(
        jetty,
        URI.create("http://127.0.0.1:" + relay.port() + "/mcp"),
        mcp,
        calls,
        regionHeaders,
        tools,
        relay);
  }

  /**
   * The {@code Mcp-Param-*} headers of every POST naming the {@code region} tool, as they came on
   * the wire: {@code "Region=us-west1"}, comma-separated when several, empty when none.
   */
  public List<String> regionHeaders() {
    return List.copyOf(regionHeaders);
  }

  /** The {@code Mcp-Method} of every POST received. */
  public List<String> calls() {
    return List.copyOf(calls);
  }

  /** How many connections the client closed while the server still held them open. */
  public int clientClosedConnections() {
    return relay.clientClosed();
  }

  /** The server's own endpoint, without the relay that watches connections close ({@link #url}). */
  public URI directUrl() {
    return URI.create("http://127.0.0.1:" + McpJetty.port(jetty) + "/mcp");
  }

  public URI url() {
    return url;
  }

  @Override
  public void close() throws Exception {
    relay.close();
    mcp.closeGracefully();
    jetty.stop();
  }

  /** The {@code region} tool, its argument mirrored into {@code Mcp-Param-<header>}. */
  private static McpSyncTool region(String header) {
    McpSchema.Tool region =
        McpSchema.Tool.builder(
                "region",
                Map.of(
                    "type",
                    "object",
                    "properties",
                    Map.of("region", Map.of("type", "string", "x-mcp-header", header)),
                    "required",
                    List.of("region")))
            .description("region test tool")
            .build();
    return McpSyncTool.of(
        region,
        (ctx, req) -> McpSyncResponse.result(text(String.valueOf(req.arguments().get("region")))));
  }

  /**
   * From now on the {@code region} tool mirrors its argument into {@code Mcp-Param-<header>}: a
   * client holding the older listing sends the wrong header until it lists the tools again.
   */
  public void renameRegionHeader(String header) {
    tools.put("region", region(header));
  }

  private static McpServer server(AtomicInteger drops, Map<String, McpSyncTool> tools) {
    add(tools, "echo", Map.of("text", "string"), (ctx, a) -> text(String.valueOf(a.get("text"))));
    add(
        tools,
        "add",
        Map.of("a", "number", "b", "number"),
        (ctx, a) ->
            text(
                String.valueOf(
                    ((Number) a.get("a")).longValue() + ((Number) a.get("b")).longValue())));
    add(
        tools,
        "sleep",
        Map.of("ms", "number"),
        (ctx, a) -> {
          try {
            Thread.sleep(((Number) a.get("ms")).longValue());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return text("slept");
        });
    processes(tools);
    add(tools, "meta", Map.of(), (ctx, a) -> text(String.valueOf(ctx.meta())));
    add(
        tools,
        "ledger",
        Map.of("file", "string"),
        (ctx, a) -> {
          Path file = Path.of(String.valueOf(a.get("file")));
          String key = String.valueOf(ctx.meta().get(KEY));
          long lines = ledger(file, key);
          if (drops.getAndDecrement() > 0
              && ctx.transportContext().get(REQUEST) instanceof HttpServletRequest r) {
            // Performed, and now the response stream breaks before the result is written.
            ServletContextRequest.getServletContextRequest(r)
                .getConnectionMetaData()
                .getConnection()
                .close();
          }
          return text(String.valueOf(lines));
        });
    tools.put("region", region("Region"));
    McpSyncToolRepository repository =
        new McpSyncToolRepository() {
          @Override
          public ToolsPage list(McpRequestContext ctx, String cursor) {
            return ToolsPage.of(tools.values().stream().map(McpSyncTool::definition).toList());
          }

          @Override
          public McpSyncTool find(McpRequestContext ctx, String name) {
            return tools.get(name);
          }
        };
    return McpServer.builder()
        .serverInfo(McpSchema.Implementation.builder("flows-test-modern", "1.0").build())
        .feature(ToolsFeature.ofSync(repository))
        .build();
  }

  /** pid, and spawn_grandchild (leaves a process behind, answers its pid). */
  private static void processes(Map<String, McpSyncTool> tools) {
    add(tools, "pid", Map.of(), (ctx, a) -> text(String.valueOf(ProcessHandle.current().pid())));
    add(
        tools,
        "spawn_grandchild",
        Map.of(),
        (ctx, a) -> {
          try {
            return text(Deafness.spawnGrandchild());
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static synchronized long ledger(Path file, String key) {
    try {
      List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
      if (!lines.contains(key)) {
        Files.writeString(file, key + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return lines.size() + 1;
      }
      return lines.size();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private interface Body {
    McpSchema.CallToolResult run(McpRequestContext ctx, Map<String, Object> args);
  }

  private static void add(
      Map<String, McpSyncTool> tools, String name, Map<String, String> params, Body body) {
    Map<String, Object> properties = new LinkedHashMap<>();
    params.forEach((k, type) -> properties.put(k, Map.of("type", type)));
    Map<String, Object> schema =
        Map.of(
            "type", "object", "properties", properties, "required", List.copyOf(params.keySet()));
    McpSchema.Tool tool =
        McpSchema.Tool.builder(name, schema).description(name + " test tool").build();
    tools.put(
        name,
        McpSyncTool.of(
            tool,
            (ctx, req) ->
                McpSyncResponse.result(
                    body.run(ctx, req.arguments() == null ? Map.of() : req.arguments()))));
  }

  /** The tools, by name; {@link #renameRegionHeader} replaces one while the server runs. */
  private static Map<String, McpSyncTool> tools() {
    Map<String, McpSyncTool> tools = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
    add(tools, "noop", Map.of(), (ctx, a) -> text("ok"));
    return tools;
  }

  private static McpSchema.CallToolResult text(String s) {
    return McpSchema.CallToolResult.builder()
        .addContent(McpSchema.TextContent.builder(s).build())
        .isError(false)
        .build();
  }
}
