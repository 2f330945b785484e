package dev.flows.ops;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Fields;

/**
 * What keeps another site from acting through an operator's browser: every POST must come from the
 * console's own pages (a foreign {@code Origin}, or without one a cross-site {@code
 * Sec-Fetch-Site}, is refused), and a form post must carry the session's CSRF token (a random value
 * the console sets as an HttpOnly, SameSite=Strict cookie and writes into its forms; a double
 * submit, compared in constant time). A request with {@code Authorization: Bearer} comes from a
 * script, not a form a browser sends by itself, so it needs no CSRF token. Every refusal is logged.
 */
final class ConsoleGuard {
  static final String CSRF_COOKIE = "flows_csrf";
  static final String CSRF_FIELD = "csrf";

  private static final Pattern WELL_FORMED = Pattern.compile("[A-Za-z0-9_-]{43}");
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final System.Logger LOG = System.getLogger("dev.flows.ops.Console");

  private ConsoleGuard() {}

  /** The session's CSRF token: the cookie's, or a new one set on {@code response}. */
  static String session(Request request, Response response) {
    Optional<String> have = cookie(request);
    if (have.isPresent()) {
      return have.get();
    }
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    response
        .getHeaders()
        .add(
            HttpHeader.SET_COOKIE,
            CSRF_COOKIE
                + "="
                + token
                + "; Path="
                + ConsoleBasePath.url(request, "/")
                + "; HttpOnly; SameSite=Strict");
    return token;
  }

  private static Optional<String> cookie(Request request) {
    for (HttpCookie c : Request.getCookies(request)) {
      if (c.getName().equals(CSRF_COOKIE) && WELL_FORMED.matcher(c.getValue()).matches()) {
        return Optional.of(c.getValue());
      }
    }
    return Optional.empty();
  }

  /**
   * Refuses a POST another site made: an {@code Origin} that is not the console's own ({@code null}
   * included); without one (not a browser, or an old one), a {@code Sec-Fetch-Site} of {@code
   * cross-site} or {@code same-site}.
   */
  static void sameOrigin(Request request) {
    String origin = request.getHeaders().get(HttpHeader.ORIGIN);
    String host = request.getHeaders().get(HttpHeader.HOST);
    if (origin != null) {
      if (host == null || !(origin.equals("http://" + host) || origin.equals("https://" + host))) {
        throw refused("the request came from another origin (" + Database.oneLine(origin) + ")");
      }
      return;
    }
    String site = request.getHeaders().get("Sec-Fetch-Site");
    if (site != null && (site.equals("cross-site") || site.equals("same-site"))) {
      throw refused("the request came from another site (Sec-Fetch-Site " + site + ")");
    }
  }

  /** Refuses a form post whose CSRF field does not match the session's cookie. */
  static void csrf(Request request, Fields form) {
    Optional<String> cookie = cookie(request);
    Optional<String> sent = ConsoleHandler.given(form, CSRF_FIELD);
    if (cookie.isEmpty()
        || sent.isEmpty()
        || !MessageDigest.isEqual(
            cookie.get().getBytes(StandardCharsets.UTF_8),
            sent.get().getBytes(StandardCharsets.UTF_8))) {
      throw refused("the form does not carry this session's CSRF token");
    }
  }

  /** Logs a refused action: who, what, why (never a token: refusals do not carry it). */
  static void log(Request request, String action, String why) {
    LOG.log(
        System.Logger.Level.WARNING,
        "refused action "
            + Database.oneLine(action)
            + " from "
            + Request.getRemoteAddr(request)
            + ": "
            + why);
  }

  private static ConsoleHandler.Refusal refused(String why) {
    return new ConsoleHandler.Refusal(
        403,
        "ui_cross_site",
        why,
        "the request",
        "act from the console's own page (reload it to get a fresh form)");
  }
}
