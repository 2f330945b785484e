package dev.flows.examples.servers;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.modern.server.transport.HttpServletMcpTransport;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The payments example server: MCP over Streamable HTTP on embedded Jetty, bound to 127.0.0.1,
 * behind a bearer token, in the revision each request is in (2026-07-28 or a 2025 session). Tools:
 * {@code create_customer}, {@code charge}, {@code credit}, {@code ledger}, {@code session_summary}.
 *
 * <p>{@code main} takes an optional port (0 or none picks a free one), reads the token from {@value
 * #TOKEN_ENV} and prints {@code listening on http://127.0.0.1:PORT/mcp} on standard output.
 */
public final class PaymentsServer implements AutoCloseable {
  public static final String NAME = "flows-example-payments";
  public static final String VERSION = "1.0.0";
  public static final String HOST = "127.0.0.1";
  public static final String ENDPOINT = "/mcp";
  public static final String TOKEN_ENV = "PAYMENTS_TOKEN";

  /** Exit status of {@code main} when it cannot start (no token, bad port, port taken). */
  static final int EXIT_CANNOT_START = 2;

  private final Server jetty;
  private final McpSyncServer mcp;
  private final Payments payments;
  private final int port;

  private PaymentsServer(Server jetty, McpSyncServer mcp, Payments payments, int port) {
    this.jetty = jetty;
    this.mcp = mcp;
    this.payments = payments;
    this.port = port;
  }

  /** Starts on {@code port} (0 picks a free one); a failure to bind is thrown. */
  public static PaymentsServer start(ExamplesConfig config, int port, String token)
      throws Exception {
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(McpJsonDefaults.getMapper())
            .mcpEndpoint(ENDPOINT)
            .keepAliveInterval(config.keepAliveInterval())
            .build();
    Payments payments = new Payments(config);
    McpSyncServer mcp =
        McpServer.sync(transport)
            .serverInfo(NAME, VERSION)
            .requestTimeout(config.requestTimeout())
            .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
            .tools(payments.tools().stream().map(ExampleTool::legacy).toList())
            .build();
    HttpServletMcpTransport modern =
        HttpServletMcpTransport.builder(ModernTools.server(NAME, VERSION, payments.tools()))
            .jsonMapper(McpJsonDefaults.getMapper())
            .endpoint(ENDPOINT)
            .build();

    Server jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost(HOST);
    connector.setPort(port);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    ServletHolder servlet = new ServletHolder(new RevisionServlet(modern, transport));
    // Streamable HTTP answers with SSE streams held open asynchronously.
    servlet.setAsyncSupported(true);
    context.addServlet(servlet, ENDPOINT);
    FilterHolder auth = new FilterHolder(new BearerAuthFilter(token));
    auth.setAsyncSupported(true);
    context.addFilter(auth, "/*", EnumSet.of(DispatcherType.REQUEST));
    jetty.setHandler(context);
    jetty.setStopTimeout(config.stopTimeout().toMillis());
    try {
      jetty.start();
    } catch (Exception e) {
      mcp.close();
      jetty.stop();
      throw e;
    }
    return new PaymentsServer(jetty, mcp, payments, connector.getLocalPort());
  }

  public int port() {
    return port;
  }

  public URI endpoint() {
    return URI.create("http://" + HOST + ":" + port + ENDPOINT);
  }

  /** The ledger this process keeps across all sessions. */
  public IdempotencyLedger ledger() {
    return payments.ledger();
  }

  @Override
  public void close() throws Exception {
    try {
      mcp.closeGracefully();
    } finally {
      jetty.stop();
    }
  }

  public static void main(String[] args) throws Exception {
    Logging.toStderr();
    String token = System.getenv(TOKEN_ENV);
    if (token == null || token.isBlank()) {
      System.err.println(
          NAME + ": set " + TOKEN_ENV + " to the bearer token clients must send, then start again");
      System.exit(EXIT_CANNOT_START);
    }
    int port;
    try {
      port = args.length == 0 ? 0 : Integer.parseInt(args[0]);
      if (port < 0 || port > 65_535) {
        throw new NumberFormatException();
      }
    } catch (NumberFormatException e) {
      System.err.println(NAME + ": usage: payments-server [PORT] (0 or none picks a free port)");
      System.exit(EXIT_CANNOT_START);
      return;
    }
    PaymentsServer server;
    try {
      server = start(ExamplesConfig.defaults(), port, token);
    } catch (Exception e) {
      System.err.println(NAME + ": cannot listen on " + HOST + ":" + port + ": " + e.getMessage());
      System.exit(EXIT_CANNOT_START);
      return;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } catch (Exception e) {
                    System.err.println(NAME + ": stopping: " + e.getMessage());
                  }
                }));
    System.out.println("listening on " + server.endpoint());
    System.out.flush();
    server.jetty.join();
  }
}
