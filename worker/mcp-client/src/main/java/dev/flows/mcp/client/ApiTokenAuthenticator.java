package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpAuth;
import java.util.Map;

/** A static token in a configurable header; read from its source on every request. */
final class ApiTokenAuthenticator implements HttpAuthenticator {
  private final String server;
  private final McpAuth.ApiToken config;
  private final McpCredentials credentials;

  ApiTokenAuthenticator(String server, McpAuth.ApiToken config, McpCredentials credentials) {
    this.server = server;
    this.config = config;
    this.credentials = credentials;
  }

  @Override
  public Map<String, String> headers() {
    String token = credentials.secret(server, config.token());
    return Map.of(config.headerName(), config.scheme().map(s -> s + " " + token).orElse(token));
  }

  @Override
  public boolean onChallenge(int status, java.net.http.HttpHeaders headers) {
    // A static token has nothing better to offer.
    return false;
  }

  @Override
  public String toString() {
    return "api-token("
        + config.headerName()
        + ", "
        + McpCredentials.describe(config.token())
        + ")";
  }
}
