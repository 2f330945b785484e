package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where secrets named by configuration are read: the worker's environment and providers registered
 * in code (a vault client, a test double). Values are read when needed and never logged.
 */
public final class McpCredentials {
  private final Function<String, String> environment;
  private final Map<String, Supplier<String>> secrets;
  private final Map<String, OAuthTokenProvider> tokenProviders;
  private final Map<String, RedirectCompleter> completers;

  public McpCredentials(
      Function<String, String> environment,
      Map<String, Supplier<String>> secrets,
      Map<String, OAuthTokenProvider> tokenProviders,
      Map<String, RedirectCompleter> completers) {
    this.environment = environment;
    this.secrets = Map.copyOf(secrets);
    this.tokenProviders = Map.copyOf(tokenProviders);
    this.completers = Map.copyOf(completers);
  }

  /** Only the process environment. */
  public static McpCredentials fromEnvironment() {
    return new McpCredentials(System::getenv, Map.of(), Map.of(), Map.of());
  }

  /** The value of the variable {@code name} where this process's secrets are read, if set. */
  public Optional<String> variable(String name) {
    return Optional.ofNullable(environment.apply(name));
  }

  /** The secret's current value; {@code auth_failed} when it is not set. */
  public String secret(String server, McpAuth.SecretSource source) {
    Optional<String> v =
        switch (source) {
          case McpAuth.SecretSource.EnvVar e ->
              Optional.ofNullable(environment.apply(e.variable()));
          case McpAuth.SecretSource.Provider p ->
              Optional.ofNullable(secrets.get(p.id())).map(Supplier::get);
        };
    return v.filter(s -> !s.isBlank())
        .orElseThrow(
            () ->
                new McpException(
                    McpDiagnostic.AUTH_FAILED,
                    server,
                    "secret " + describe(source) + " is not set",
                    "set it in the worker's environment or register its provider"));
  }

  static String describe(McpAuth.SecretSource source) {
    return switch (source) {
      case McpAuth.SecretSource.EnvVar e -> "env:" + e.variable();
      case McpAuth.SecretSource.Provider p -> "provider:" + p.id();
    };
  }

  OAuthTokenProvider tokenProvider(String server, String id) {
    return Optional.ofNullable(tokenProviders.get(id))
        .orElseThrow(
            () ->
                new McpException(
                    McpDiagnostic.AUTH_FAILED,
                    server,
                    "no OAuth token provider registered as " + id,
                    "register it with McpCredentials"));
  }

  RedirectCompleter completer(String server, String id) {
    return Optional.ofNullable(completers.get(id))
        .orElseThrow(
            () ->
                new McpException(
                    McpDiagnostic.AUTH_FAILED,
                    server,
                    "no redirect completer registered as " + id,
                    "register it with McpCredentials"));
  }
}
