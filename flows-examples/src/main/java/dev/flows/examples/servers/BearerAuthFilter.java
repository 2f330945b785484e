package dev.flows.examples.servers;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;

/**
 * Lets a request through only with {@code Authorization: Bearer <token>}; otherwise 401 with a
 * {@code WWW-Authenticate: Bearer} challenge, as MCP clients expect from a protected server.
 */
public final class BearerAuthFilter implements Filter {
  static final String REALM = "flows-example-payments";
  private static final String PREFIX = "bearer ";

  private final byte[] token;

  public BearerAuthFilter(String token) {
    if (token.isBlank()) {
      throw new IllegalArgumentException("the bearer token must not be blank");
    }
    this.token = token.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest req = (HttpServletRequest) request;
    HttpServletResponse res = (HttpServletResponse) response;
    String header = req.getHeader("Authorization");
    if (header == null || !header.toLowerCase(Locale.ROOT).startsWith(PREFIX)) {
      refuse(res, "Bearer realm=\"" + REALM + "\"", "a bearer token is required");
      return;
    }
    byte[] given = header.substring(PREFIX.length()).strip().getBytes(StandardCharsets.UTF_8);
    // Constant-time comparison: the answer's timing must not reveal how much of a guess was right.
    if (!MessageDigest.isEqual(given, token)) {
      refuse(
          res,
          "Bearer realm=\"" + REALM + "\", error=\"invalid_token\"",
          "the bearer token is not valid");
      return;
    }
    chain.doFilter(request, response);
  }

  private static void refuse(HttpServletResponse res, String challenge, String message)
      throws IOException {
    res.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
    res.setHeader("WWW-Authenticate", challenge);
    res.setContentType("application/json");
    res.setCharacterEncoding("UTF-8");
    res.getWriter().write("{\"error\":\"unauthorized\",\"message\":\"" + message + "\"}");
  }
}
