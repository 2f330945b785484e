package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfig;
import java.time.InstantSource;

/** Chooses the transport (and, for HTTP, the authenticator) from a server's configuration. */
public final class McpTransports {
  private McpTransports() {}

  public static TransportFactory factory(
      McpServerConfig server, McpClientConfig limits, McpCredentials credentials) {
    return factory(server, limits, credentials, InstantSource.system());
  }

  /** With the clock that dates OAuth client assertions. */
  public static TransportFactory factory(
      McpServerConfig server,
      McpClientConfig limits,
      McpCredentials credentials,
      InstantSource clock) {
    return switch (server) {
      case McpServerConfig.Stdio s -> lost -> new StdioTransport(s, limits, Json.MAPPER, lost);
      case McpServerConfig.Http h -> {
        HttpAuthenticator auth = authenticator(h, limits, credentials, clock);
        yield lost -> new StreamableHttpTransport(h, limits, Json.MAPPER, auth, lost);
      }
    };
  }

  /** One authenticator per server, shared by its reconnects so tokens survive them. */
  static HttpAuthenticator authenticator(
      McpServerConfig.Http h,
      McpClientConfig limits,
      McpCredentials credentials,
      InstantSource clock) {
    return switch (h.auth()) {
      case McpAuth.None n -> HttpAuthenticator.NONE;
      case McpAuth.ApiToken t -> new ApiTokenAuthenticator(h.name(), t, credentials);
      case McpAuth.OAuth o ->
          new OAuthAuthenticator(h.name(), h.url(), o, credentials, limits, clock);
    };
  }
}
