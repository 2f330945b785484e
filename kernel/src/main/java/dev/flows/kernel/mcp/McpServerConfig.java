package dev.flows.kernel.mcp;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach one MCP server; the variant chooses the transport, so one pool can mix both. Names
 * are unique within a pool and prefix the server's tools in the registry.
 */
public sealed interface McpServerConfig {
  String name();

  /** The protocol revision to speak ({@link McpProtocol#AUTO} unless flows.json pins one). */
  McpProtocol protocol();

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
      McpProtocol protocol)
      implements McpServerConfig {
    public Stdio {
      requireName(name);
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

    public Stdio withProtocol(McpProtocol p) {
      return new Stdio(name, command, args, envAllowlist, env, cwd, p);
    }
  }

  /** A remote server on Streamable HTTP. {@code headers} are sent on every request. */
  record Http(String name, URI url, Map<String, String> headers, McpAuth auth, McpProtocol protocol)
      implements McpServerConfig {
    public Http {
      requireName(name);
      Objects.requireNonNull(url, "url");
      headers = Map.copyOf(headers);
      Objects.requireNonNull(auth, "auth");
      Objects.requireNonNull(protocol, "protocol");
    }

    /** Protocol chosen per server ({@link McpProtocol#AUTO}). */
    public Http(String name, URI url, Map<String, String> headers, McpAuth auth) {
      this(name, url, headers, auth, McpProtocol.AUTO);
    }

    public Http withProtocol(McpProtocol p) {
      return new Http(name, url, headers, auth, p);
    }
  }

  private static void requireName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank() || name.contains("/")) {
      throw new IllegalArgumentException("server name must be non-blank without '/': " + name);
    }
  }
}
