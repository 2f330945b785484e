package dev.flows.mcp.client;

/** Access tokens obtained elsewhere (a platform's token service); injected by the embedder. */
public interface OAuthTokenProvider {
  /** The current access token. */
  String token();

  /**
   * The server refused {@code rejected}; obtain a new one. Returns the new token, or the same one
   * when there is nothing newer (the caller then gives up: no refresh loop).
   */
  String refresh(String rejected);
}
