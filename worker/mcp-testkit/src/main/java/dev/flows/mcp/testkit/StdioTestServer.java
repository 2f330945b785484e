package dev.flows.mcp.testkit;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An SDK stdio server run as a child JVM by the tests. Flags: {@code --ignore-sigterm} (and stdin
 * EOF), {@code --close-stderr}, {@code --silent} (never answers: reads stdin and drops it), {@code
 * --log=FILE} (every line read from stdin is appended to FILE).
 */
public final class StdioTestServer {
  private StdioTestServer() {}

  public static void main(String[] args) throws Exception {
    List<String> flags = List.of(args);
    boolean deaf = Deafness.ignoreSigtermIf(flags);
    if (flags.contains("--close-stderr")) {
      System.err.close();
    }
    if (flags.contains("--silent")) {
      InputStream in = System.in;
      byte[] buf = new byte[4096];
      while (in.read(buf) >= 0) {
        // Swallow everything: a server that never completes the handshake.
      }
      if (deaf) {
        Thread.sleep(Long.MAX_VALUE);
      }
      System.exit(0);
    }
    java.util.Optional<java.nio.file.Path> log =
        flags.stream()
            .filter(a -> a.startsWith("--log="))
            .map(a -> java.nio.file.Path.of(a.substring(6)))
            .findFirst();
    InputStream source = log.isPresent() ? new LineLog(System.in, log.get()) : System.in;
    // A deaf server outlives its client on purpose (it ignores TERM too).
    InputStream in = deaf ? source : new HaltAtEof(source);
    AtomicReference<McpSyncServer> self = new AtomicReference<>();
    // Sends take turns: the SDK's provider ends the session on a concurrent send under load.
    McpServerTransportProvider transport =
        new SerialisedSends(
            new StdioServerTransportProvider(McpJsonDefaults.getMapper(), in, System.out));
    self.set(
        McpServer.sync(transport)
            .serverInfo("flows-test-stdio", "1.0")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(TestTools.all(self))
            .build());
    Thread.sleep(Long.MAX_VALUE);
  }
}
