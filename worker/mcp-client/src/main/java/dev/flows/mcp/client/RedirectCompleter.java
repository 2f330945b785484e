package dev.flows.mcp.client;

import java.net.URI;

/**
 * Completes an authorization-code redirect: given the authorization URL, has the user (or a
 * headless agent in tests) visit it and returns the redirect URI the authorization server sent
 * back, with its {@code code} and {@code state} query parameters.
 */
@FunctionalInterface
public interface RedirectCompleter {
  URI complete(URI authorizationUrl);
}
