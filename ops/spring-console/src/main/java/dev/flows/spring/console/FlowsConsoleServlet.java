package dev.flows.spring.console;

import dev.flows.ops.ConsoleMount;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Hands each request under the console's path to the console, in-process ({@link ConsoleMount}),
 * and writes back its answer. The console starts with the servlet, under the servlet context's path
 * followed by the console's, and stops with it.
 */
final class FlowsConsoleServlet extends HttpServlet {
  /** The largest request body passed on: the console's forms are a few fields. */
  static final int MAX_BODY_BYTES = 1 << 20;

  private final transient DataSource dataSource;
  private final transient Optional<String> token;
  private final String path;
  private final transient ConsoleMount.Limits limits;
  private transient @Nullable ConsoleMount console;

  FlowsConsoleServlet(
      DataSource dataSource, Optional<String> token, String path, ConsoleMount.Limits limits) {
    this.dataSource = dataSource;
    this.token = token;
    this.path = path;
    this.limits = limits;
  }

  @Override
  public void init() throws ServletException {
    console =
        ConsoleMount.start(dataSource, token, getServletContext().getContextPath() + path, limits);
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    ConsoleMount mount = console;
    if (mount == null) {
      response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
      return;
    }
    byte[] body;
    try (InputStream in = request.getInputStream()) {
      body = in.readNBytes(MAX_BODY_BYTES + 1);
    }
    if (body.length > MAX_BODY_BYTES) {
      response.sendError(HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE);
      return;
    }
    String query = request.getQueryString();
    ConsoleMount.Exchange answer =
        mount.serve(
            request.getRemoteAddr(),
            request.getMethod(),
            request.getRequestURI() + (query == null ? "" : "?" + query),
            headers(request),
            body);
    response.setStatus(answer.status());
    for (Map.Entry<String, String> h : answer.headers()) {
      response.addHeader(h.getKey(), h.getValue());
    }
    response.setContentLength(answer.body().length);
    response.getOutputStream().write(answer.body());
  }

  private static List<Map.Entry<String, String>> headers(HttpServletRequest request) {
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (String name : Collections.list(request.getHeaderNames())) {
      for (String value : Collections.list(request.getHeaders(name))) {
        headers.add(Map.entry(name, value));
      }
    }
    return headers;
  }

  @Override
  public void destroy() {
    ConsoleMount mount = console;
    console = null;
    if (mount != null) {
      mount.close();
    }
  }
}
