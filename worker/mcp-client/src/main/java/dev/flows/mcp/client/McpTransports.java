package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.mcp.client.TransportFactory.ModernTransport;
import io.modelcontextprotocol.spec.McpClientTransport;
import java.time.InstantSource;
import java.util.Optional;

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
      case McpServerConfig.Stdio s -> new StdioFactory(s, limits);
      case McpServerConfig.Http h -> {
        HttpAuthenticator auth = authenticator(h, limits, credentials, clock);
        yield new TransportFactory() {
          @Override
          public McpClientTransport create(LossListener lost) {
            return new StreamableHttpTransport(h, limits, Json.MAPPER, auth, lost);
          }

          @Override
          public Optional<ModernTransport> modern(LossListener lost) {
            return Optional.of(ModernHttp.transport(h, limits, auth));
          }

          @Override
          public McpProtocol protocol() {
            return h.protocol();
          }
        };
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

  /** A stdio server: probed for 2026-07-28 first unless pinned, else the 2025 handshake. */
  private static final class StdioFactory implements TransportFactory {
    private final McpServerConfig.Stdio s;
    private final McpClientConfig limits;

    StdioFactory(McpServerConfig.Stdio s, McpClientConfig limits) {
      this.s = s;
      this.limits = limits;
    }

    // A probed 2025 server's process, handed to the handshake that follows the probe.
    private final java.util.concurrent.atomic.AtomicReference<StdioTransport> probed =
        new java.util.concurrent.atomic.AtomicReference<>();

    @Override
    public McpClientTransport create(LossListener lost) {
      StdioTransport t = probed.getAndSet(null);
      return t != null ? t : new StdioTransport(s, limits, Json.MAPPER, lost);
    }

    @Override
    public Optional<ModernTransport> modern(LossListener lost) {
      java.time.Duration wait =
          s.protocol() == McpProtocol.AUTO
              ? limits.connectTimeout().dividedBy(3)
              : limits.connectTimeout();
      StdioTransport.Probe probe;
      try {
        probe = StdioTransport.probe(s, limits, lost, wait);
      } catch (McpException e) {
        if (s.protocol() != McpProtocol.AUTO) {
          throw e;
        }
        // Could not start: the 2025 path starts it again and reports why, as it always has.
        return Optional.empty();
      }
      return switch (probe) {
        case StdioTransport.Probe.Modern m -> Optional.of(m.transport());
        case StdioTransport.Probe.Legacy l when !s.protocol().allowsLegacy() -> {
          // Pinned to 2026-07-28: no 2025 handshake will take this process over, so it is reaped
          // now, by the same rule as any server's at stop.
          l.transport().close();
          yield Optional.empty();
        }
        case StdioTransport.Probe.Legacy l -> {
          StdioTransport old = probed.getAndSet(l.transport());
          if (old != null) {
            old.close();
          }
          yield Optional.empty();
        }
      };
    }

    @Override
    public McpProtocol protocol() {
      return s.protocol();
    }
  }
}
