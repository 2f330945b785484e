package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Completes an authorization redirect without a browser: fetches the authorization URL and returns
 * the redirect's {@code Location}. Works with authorization servers that approve without user
 * interaction (test servers, pre-consented automation clients).
 */
public final class HeadlessRedirectCompleter implements RedirectCompleter {
  private final HttpClient http;
  private final Duration timeout;

  public HeadlessRedirectCompleter(Duration timeout) {
    this.timeout = timeout;
    this.http = McpHttp.newHttpClient(timeout);
  }

  @Override
  public URI complete(URI authorizationUrl) {
    try {
      HttpResponse<Void> r =
          http.send(
              HttpRequest.newBuilder(authorizationUrl).timeout(timeout).GET().build(),
              HttpResponse.BodyHandlers.discarding());
      return r.headers()
          .firstValue("Location")
          .map(authorizationUrl::resolve)
          .orElseThrow(
              () ->
                  refused(
                      "no redirect from the authorization endpoint (HTTP " + r.statusCode() + ")"));
    } catch (IOException e) {
      throw refused("authorization endpoint unreachable: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw refused("interrupted");
    }
  }

  private static McpException refused(String why) {
    return new McpException(
        McpDiagnostic.AUTH_FAILED, "oauth", why, "complete the authorization interactively");
  }
}
