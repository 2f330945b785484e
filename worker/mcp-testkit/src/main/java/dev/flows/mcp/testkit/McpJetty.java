package dev.flows.mcp.testkit;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.util.EnumSet;
import java.util.Optional;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** Jetty 12 on 127.0.0.1 serving one MCP servlet at {@code /mcp} (async), behind a filter. */
final class McpJetty {
  private McpJetty() {}

  /** Started on {@code port} (0: a free one). */
  static Server start(HttpServlet servlet, int port, Optional<Filter> filter) throws Exception {
    Server jetty = new Server();
    ServerConnector c = new ServerConnector(jetty);
    c.setHost("127.0.0.1");
    c.setPort(port);
    jetty.addConnector(c);
    ServletContextHandler ctx = new ServletContextHandler();
    ctx.setContextPath("/");
    ServletHolder holder = new ServletHolder(servlet);
    holder.setAsyncSupported(true);
    ctx.addServlet(holder, "/mcp");
    if (filter.isPresent()) {
      FilterHolder fh = new FilterHolder(filter.get());
      fh.setAsyncSupported(true);
      ctx.addFilter(fh, "/*", EnumSet.of(DispatcherType.REQUEST));
    }
    jetty.setHandler(ctx);
    jetty.start();
    return jetty;
  }

  static int port(Server jetty) {
    return ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
  }
}
