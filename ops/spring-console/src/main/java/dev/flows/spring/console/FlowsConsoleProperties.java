package dev.flows.spring.console;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code flows.console.*} properties (SURFACE.md, "Spring Boot starter").
 *
 * @param enabled Serve the web console from this application's web server
 * @param path The path it is served under, e.g. /flows (pages at /flows/, runs at /flows/runs/ID)
 * @param token The operator token the console's actions need (e.g. ${FLOWS_CONSOLE_TOKEN}); without
 *     one the console is read-only; never printed
 */
@ConfigurationProperties("flows.console")
public record FlowsConsoleProperties(
    @DefaultValue("false") boolean enabled,
    @DefaultValue(FlowsConsoleProperties.DEFAULT_PATH) String path,
    @Nullable String token) {
  /** Where the console is served unless {@code flows.console.path} says otherwise. */
  public static final String DEFAULT_PATH = "/flows";

  /** Says whether a token is set, never the token. */
  @Override
  public String toString() {
    return "FlowsConsoleProperties[enabled="
        + enabled
        + ", path="
        + path
        + ", token="
        + (token == null || token.isBlank() ? "none" : "******")
        + "]";
  }
}
