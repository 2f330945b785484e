package dev.flows.examples.servers;

import dev.flows.mcp.testkit.SerialisedSends;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.modern.server.transport.StdioMcpTransport;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;

/**
 * The tickets example server over stdio: {@code classify}, {@code create_ticket}, {@code
 * get_ticket}, in the MCP revision its client opens with (2026-07-28 or a 2025 one). Standard
 * output carries only the protocol; everything else goes to standard error. It exits when standard
 * input closes, as a stdio server must when its client goes away.
 */
public final class TicketsServer {
  public static final String NAME = "flows-example-tickets";
  public static final String VERSION = "1.0.0";

  private TicketsServer() {}

  public static void main(String[] args) throws InterruptedException, IOException {
    Logging.toStderr();
    ExamplesConfig config = ExamplesConfig.defaults();
    PrintStream stdout = System.out;
    // Anything printed by a library would corrupt the protocol stream: send it to stderr instead.
    System.setOut(System.err);
    StdioLifecycle lifecycle =
        new StdioLifecycle(
            config.stdinEofGrace(),
            () -> {
              stdout.flush();
              System.err.println(NAME + ": stdin closed, exiting");
              Runtime.getRuntime().halt(0);
            });
    List<ExampleTool> tools = new Tickets(config).tools();
    InputStream in = lifecycle.watch(System.in);
    OutputStream out = lifecycle.watch(stdout);
    // Both revisions on one process: a 2026-07-28 client opens with server/discover, a 2025 one
    // with initialize; the first line decides, and is handed on to the transport that reads it.
    FirstLine first = FirstLine.read(in);
    if (first.method().equals("server/discover")) {
      new StdioMcpTransport(
              ModernTools.server(NAME, VERSION, tools),
              McpJsonDefaults.getMapper(),
              first.replayed(),
              out)
          .start()
          .block();
    } else {
      // Sends take turns: the SDK's provider ends the session on a concurrent send under load.
      McpServer.sync(
              new SerialisedSends(
                  new StdioServerTransportProvider(
                      McpJsonDefaults.getMapper(), first.replayed(), out)))
          .serverInfo(NAME, VERSION)
          .requestTimeout(config.requestTimeout())
          .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
          .tools(tools.stream().map(ExampleTool::legacy).toList())
          .build();
    }
    System.err.println(NAME + ": serving on stdio");
    Thread.currentThread().join();
  }
}
