package dev.flows.mcp.testkit;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.Server;

/**
 * The SDK's Streamable HTTP server on embedded Jetty 12, bound to 127.0.0.1. It can require a
 * header value (to test api-token auth) and records the request headers it saw. Stopping and
 * starting it again on the same port loses every session (the session-expired path).
 */
public final class JettyMcpServer implements AutoCloseable {
  private final Optional<String[]> requiredHeader;
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private Server jetty;
  private McpSyncServer mcp;
  private int port;

  public JettyMcpServer(Optional<String[]> requiredHeader) {
    this.requiredHeader = requiredHeader;
  }

  public JettyMcpServer start() throws Exception {
    return start(0);
  }

  public synchronized JettyMcpServer start(int onPort) throws Exception {
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(McpJsonDefaults.getMapper())
            .mcpEndpoint("/mcp")
            .build();
    AtomicReference<McpSyncServer> self = new AtomicReference<>();
    mcp =
        McpServer.sync(transport)
            .serverInfo("flows-test-http", "1.0")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(TestTools.all(self))
            .build();
    self.set(mcp);
    Filter guard =
        (req, res, chain) -> {
          HttpServletRequest r = (HttpServletRequest) req;
          seen.add(r.getMethod() + " " + headerLine(r));
          if (requiredHeader.isPresent()
              && !requiredHeader.get()[1].equals(r.getHeader(requiredHeader.get()[0]))) {
            HttpServletResponse w = (HttpServletResponse) res;
            w.setHeader("WWW-Authenticate", "Bearer");
            w.sendError(401);
            return;
          }
          chain.doFilter(req, res);
        };
    jetty = McpJetty.start(transport, onPort, Optional.of(guard));
    port = McpJetty.port(jetty);
    return this;
  }

  private String headerLine(HttpServletRequest r) {
    StringBuilder b = new StringBuilder();
    for (String name : java.util.Collections.list(r.getHeaderNames())) {
      b.append(name.toLowerCase(java.util.Locale.ROOT))
          .append('=')
          .append(r.getHeader(name))
          .append(';');
    }
    return b.toString();
  }

  public URI url() {
    return URI.create("http://127.0.0.1:" + port + "/mcp");
  }

  public int port() {
    return port;
  }

  /** "METHOD header=value;..." for every request seen. */
  public List<String> requests() {
    return List.copyOf(seen);
  }

  public synchronized void stop() throws Exception {
    if (mcp != null) {
      mcp.close();
    }
    if (jetty != null) {
      jetty.stop();
    }
  }

  @Override
  public void close() throws Exception {
    stop();
  }
}
