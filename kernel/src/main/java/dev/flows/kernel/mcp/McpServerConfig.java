package dev.flows.kernel.mcp;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * How to reach one MCP server; the variant chooses the transport, so one pool can mix both. Names
 * are unique within a pool and prefix the server's tools in the registry.
 */
public sealed interface McpServerConfig {
  String name();

  /** The protocol revision to speak ({@link McpProtocol#AUTO} unless flows.json pins one). */
  McpProtocol protocol();

  /**
   * This server's own {@code limits.maxResultBytes} from flows.json; empty means the worker's
   * ({@link McpClientConfig#maxResultBytes}).
   */
  OptionalInt maxResultBytes();

  /** The client limits for this server: the worker's, with this server's own where it has one. */
  default McpClientConfig limits(McpClientConfig worker) {
    OptionalInt own = maxResultBytes();
    return own.isPresent() ? worker.withMaxResultBytes(own.getAsInt()) : worker;
  }

  /** This server with its own largest message (flows.json {@code limits.maxResultBytes}). */
  McpServerConfig withMaxResultBytes(OptionalInt bytes);

  /**
   * A local server spoken to over stdin/stdout. The child starts with an EMPTY environment plus
   * {@code envAllowlist} (names copied from the parent when set there) plus {@code env} (explicit
   * values, which win).
   */
  record Stdio(
      String name,
      String command,
      List<String> args,
      List<String> envAllowlist,
      Map<String, String> env,
      Optional<String> cwd,
      McpProtocol protocol,
      OptionalInt maxResultBytes)
      implements McpServerConfig {
    public Stdio {
      requireName(name);
      requireLimit(maxResultBytes);
      Objects.requireNonNull(command, "command");
      args = List.copyOf(args);
      envAllowlist = List.copyOf(envAllowlist);
      env = Map.copyOf(env);
      Objects.requireNonNull(cwd, "cwd");
      Objects.requireNonNull(protocol, "protocol");
    }

    /** Protocol chosen per server ({@link McpProtocol#AUTO}). */
    public Stdio(
        String name,
        String command,
        List<String> args,
        List<String> envAllowlist,
        Map<String, String> env,
        Optional<String> cwd) {
      this(name, command, args, envAllowlist, env, cwd, McpProtocol.AUTO);
    }

    /** The worker's limits apply. */
    public Stdio(
        String name,
        String command,
        List<String> args,
        List<String> envAllowlist,
        Map<String, String> env,
        Optional<String> cwd,
        McpProtocol protocol) {
      this(name, command, args, envAllowlist, env, cwd, protocol, OptionalInt.empty());
    }

    public Stdio withProtocol(McpProtocol p) {
      return new Stdio(name, command, args, envAllowlist, env, cwd, p, maxResultBytes);
    }

    @Override
    public Stdio withMaxResultBytes(OptionalInt bytes) {
      return new Stdio(name, command, args, envAllowlist, env, cwd, protocol, bytes);
    }
  }

  /** A remote server on Streamable HTTP. {@code headers} are sent on every request. */
  record Http(
      String name,
      URI url,
      Map<String, String> headers,
      McpAuth auth,
      McpProtocol protocol,
      OptionalInt maxResultBytes)
      implements McpServerConfig {
    public Http {
      requireName(name);
      requireLimit(maxResultBytes);
      Objects.requireNonNull(url, "url");
      headers = Map.copyOf(headers);
      Objects.requireNonNull(auth, "auth");
      Objects.requireNonNull(protocol, "protocol");
    }

    /** Protocol chosen per server ({@link McpProtocol#AUTO}). */
    public Http(String name, URI url, Map<String, String> headers, McpAuth auth) {
      this(name, url, headers, auth, McpProtocol.AUTO);
    }

    /** The worker's limits apply. */
    public Http(
        String name, URI url, Map<String, String> headers, McpAuth auth, McpProtocol protocol) {
      this(name, url, headers, auth, protocol, OptionalInt.empty());
    }

    public Http withProtocol(McpProtocol p) {
      return new Http(name, url, headers, auth, p, maxResultBytes);
    }

    @Override
    public Http withMaxResultBytes(OptionalInt bytes) {
      return new Http(name, url, headers, auth, protocol, bytes);
    }
  }

  private static void requireLimit(OptionalInt maxResultBytes) {
    Objects.requireNonNull(maxResultBytes, "maxResultBytes");
    if (maxResultBytes.isPresent()
        && maxResultBytes.getAsInt() < McpClientConfig.MIN_RESULT_BYTES) {
      throw new IllegalArgumentException(
          "maxResultBytes must be >= " + McpClientConfig.MIN_RESULT_BYTES);
    }
  }

  private static void requireName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank() || name.contains("/")) {
      throw new IllegalArgumentException("server name must be non-blank without '/': " + name);
    }
  }
}
