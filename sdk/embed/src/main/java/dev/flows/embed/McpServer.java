package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.runtime.PublicError;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An MCP server given in code ({@link FlowsBuilder#mcpServer(McpServer)}), as a flows.json entry
 * gives it: a local one spoken to over stdin/stdout, or a remote one on Streamable HTTP. Immutable:
 * each option answers a new value. Servers whose auth needs more than headers (API tokens, OAuth)
 * come from flows.json ({@link FlowsBuilder#flowsJson}).
 */
public final class McpServer {
  private final McpServerConfig config;
  private final boolean honoursIdempotencyKeys;

  private McpServer(McpServerConfig config, boolean honoursIdempotencyKeys) {
    this.config = config;
    this.honoursIdempotencyKeys = honoursIdempotencyKeys;
  }

  /**
   * A local server: {@code command} with {@code args}, started with an empty environment plus
   * {@link #inheritEnv} and {@link #env}.
   */
  public static McpServer stdio(String name, String command, List<String> args) {
    return new McpServer(
        new McpServerConfig.Stdio(name, command, args, List.of(), Map.of(), Optional.empty()),
        false);
  }

  /** A remote server on Streamable HTTP at {@code url}. */
  public static McpServer http(String name, URI url) {
    return new McpServer(new McpServerConfig.Http(name, url, Map.of(), new McpAuth.None()), false);
  }

  /** The same server, given as the engine takes it (tests and tools of this module). */
  static McpServer of(McpServerConfig config) {
    return new McpServer(config, false);
  }

  public String name() {
    return config.name();
  }

  /** A stdio server's explicit environment values (they win over inherited ones). */
  public McpServer env(Map<String, String> env) {
    McpServerConfig.Stdio s = stdioOnly("env");
    return with(
        new McpServerConfig.Stdio(
            s.name(), s.command(), s.args(), s.envAllowlist(), env, s.cwd(), s.protocol()));
  }

  /** Names of variables a stdio server copies from this process's environment when set here. */
  public McpServer inheritEnv(List<String> names) {
    McpServerConfig.Stdio s = stdioOnly("inheritEnv");
    return with(
        new McpServerConfig.Stdio(
            s.name(), s.command(), s.args(), names, s.env(), s.cwd(), s.protocol()));
  }

  /** The directory a stdio server starts in (default: this process's). */
  public McpServer cwd(String directory) {
    McpServerConfig.Stdio s = stdioOnly("cwd");
    return with(
        new McpServerConfig.Stdio(
            s.name(),
            s.command(),
            s.args(),
            s.envAllowlist(),
            s.env(),
            Optional.of(directory),
            s.protocol()));
  }

  /** Headers an HTTP server is sent on every request. */
  public McpServer headers(Map<String, String> headers) {
    if (!(config instanceof McpServerConfig.Http h)) {
      throw notFor("headers");
    }
    return with(new McpServerConfig.Http(h.name(), h.url(), headers, h.auth(), h.protocol()));
  }

  /**
   * The server dedupes calls by the idempotency key in {@code _meta}, so a call whose outcome is
   * unknown may be sent again (flows.json's {@code "idempotencyKeys"}); default: it does not.
   */
  public McpServer honouringIdempotencyKeys() {
    return new McpServer(config, true);
  }

  McpServerConfig config() {
    return config;
  }

  boolean honoursIdempotencyKeys() {
    return honoursIdempotencyKeys;
  }

  private McpServer with(McpServerConfig c) {
    return new McpServer(c, honoursIdempotencyKeys);
  }

  private McpServerConfig.Stdio stdioOnly(String option) {
    if (config instanceof McpServerConfig.Stdio s) {
      return s;
    }
    throw notFor(option);
  }

  private FlowsError notFor(String option) {
    return PublicError.of(
        new FlowsException(
            ErrorCode.CONFIG_INVALID,
            "MCP server " + config.name() + ": " + option + " is not an option of this transport",
            "mcpServer " + config.name(),
            "give " + option + " only to a server of the transport it belongs to"));
  }
}
