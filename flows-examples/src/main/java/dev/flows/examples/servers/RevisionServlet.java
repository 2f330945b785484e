package dev.flows.examples.servers;

import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * One MCP endpoint for both revisions: a request carrying {@code Mcp-Method} (sent with every
 * 2026-07-28 request, never by a 2025 client) goes to the stateless server, every other one (a 2025
 * session's POSTs, its GET stream and DELETE) to the session server.
 */
final class RevisionServlet extends HttpServlet {
  static final String METHOD_HEADER = "Mcp-Method";

  private final HttpServlet modern;
  private final HttpServlet legacy;

  RevisionServlet(HttpServlet modern, HttpServlet legacy) {
    this.modern = modern;
    this.legacy = legacy;
  }

  @Override
  public void init(ServletConfig config) throws ServletException {
    super.init(config);
    modern.init(config);
    legacy.init(config);
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse res)
      throws ServletException, IOException {
    (req.getHeader(METHOD_HEADER) != null ? modern : legacy).service(req, res);
  }

  @Override
  public void destroy() {
    modern.destroy();
    legacy.destroy();
  }
}
