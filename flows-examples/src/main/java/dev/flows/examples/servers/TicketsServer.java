package dev.flows.examples.servers;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.PrintStream;

/**
 * The tickets example server over stdio: {@code classify}, {@code create_ticket}, {@code
 * get_ticket}. Standard output carries only the protocol; everything else goes to standard error.
 * It exits when standard input closes, as a stdio server must when its client goes away.
 */
public final class TicketsServer {
  public static final String NAME = "flows-example-tickets";
  public static final String VERSION = "1.0.0";

  private TicketsServer() {}

  public static void main(String[] args) throws InterruptedException {
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
    StdioServerTransportProvider transport =
        new StdioServerTransportProvider(
            McpJsonDefaults.getMapper(), lifecycle.watch(System.in), lifecycle.watch(stdout));
    McpServer.sync(transport)
        .serverInfo(NAME, VERSION)
        .requestTimeout(config.requestTimeout())
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
        .tools(new Tickets(config).tools())
        .build();
    System.err.println(NAME + ": serving on stdio");
    Thread.currentThread().join();
  }
}
