package dev.flows.kernel.mcp;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How an HTTP server is authenticated. Secrets are never inline: configuration names where they
 * come from ({@link SecretSource}), and the worker resolves them at request time.
 */
public sealed interface McpAuth {

  /** No credentials. */
  record None() implements McpAuth {}

  /**
   * A static token in a header, e.g. {@code Authorization: Bearer <token>} or {@code X-Api-Key:
   * <token>} (scheme empty).
   */
  record ApiToken(String headerName, Optional<String> scheme, SecretSource token)
      implements McpAuth {
    public ApiToken {
      Objects.requireNonNull(headerName, "headerName");
      Objects.requireNonNull(scheme, "scheme");
      Objects.requireNonNull(token, "token");
    }
  }

  /** OAuth 2.1 bearer tokens, obtained as {@code grant} says. */
  record OAuth(OAuthGrant grant, List<String> scopes) implements McpAuth {
    public OAuth {
      Objects.requireNonNull(grant, "grant");
      scopes = List.copyOf(scopes);
    }
  }

  /** Where a secret is read from when it is needed. */
  sealed interface SecretSource {
    /** An environment variable of the worker process. */
    record EnvVar(String variable) implements SecretSource {
      public EnvVar {
        Objects.requireNonNull(variable, "variable");
      }
    }

    /** A provider registered with the worker under this id (a vault, a test double). */
    record Provider(String id) implements SecretSource {
      public Provider {
        Objects.requireNonNull(id, "id");
      }
    }
  }

  /** How a client authenticates at the token endpoint. */
  enum TokenEndpointAuth {
    CLIENT_SECRET_BASIC,
    CLIENT_SECRET_POST,
    NONE
  }

  /** Where OAuth tokens come from. */
  sealed interface OAuthGrant {
    /**
     * Tokens come from an injected provider (registered under {@code id}); on 401 the provider is
     * asked to refresh once.
     */
    record ProvidedToken(String id) implements OAuthGrant {
      public ProvidedToken {
        Objects.requireNonNull(id, "id");
      }
    }

    /** Machine-to-machine: client credentials grant with a pre-registered client. */
    record ClientCredentials(String clientId, SecretSource clientSecret, TokenEndpointAuth method)
        implements OAuthGrant {
      public ClientCredentials {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(clientSecret, "clientSecret");
        Objects.requireNonNull(method, "method");
      }
    }

    /**
     * Authorization code with PKCE for a pre-registered client. The redirect is completed by the
     * completer registered under {@code completerId} (a browser hand-off, or headless in tests).
     */
    record AuthorizationCode(
        String clientId,
        Optional<SecretSource> clientSecret,
        TokenEndpointAuth method,
        String redirectUri,
        String completerId)
        implements OAuthGrant {
      public AuthorizationCode {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(clientSecret, "clientSecret");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(redirectUri, "redirectUri");
        Objects.requireNonNull(completerId, "completerId");
      }
    }
  }
}
