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
  sealed interface ClientAuth {
    /** {@code client_secret_basic}: HTTP Basic with the client id and secret. */
    record SecretBasic(SecretSource secret) implements ClientAuth {
      public SecretBasic {
        Objects.requireNonNull(secret, "secret");
      }
    }

    /** {@code client_secret_post}: id and secret in the form body. */
    record SecretPost(SecretSource secret) implements ClientAuth {
      public SecretPost {
        Objects.requireNonNull(secret, "secret");
      }
    }

    /** {@code none}: a public client, only its id in the form body. */
    record NoSecret() implements ClientAuth {}

    /** {@code private_key_jwt} (RFC 7523) signed with an EC P-256 key (ES256), PKCS#8 PEM. */
    record PrivateKeyJwt(SecretSource privateKeyPem) implements ClientAuth {
      public PrivateKeyJwt {
        Objects.requireNonNull(privateKeyPem, "privateKeyPem");
      }
    }
  }

  /** Who the client is at the authorization server. */
  sealed interface ClientRegistration {
    /** A client registered beforehand. */
    record PreRegistered(String clientId, ClientAuth auth) implements ClientRegistration {
      public PreRegistered {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(auth, "auth");
      }
    }

    /** Dynamic client registration (RFC 7591) at the server's registration endpoint. */
    record Dynamic(String clientName) implements ClientRegistration {
      public Dynamic {
        Objects.requireNonNull(clientName, "clientName");
      }
    }

    /**
     * A URL-based client id (client ID metadata document) when the authorization server advertises
     * support for it, else dynamic registration under {@code clientName}.
     */
    record MetadataDocument(String clientIdUrl, String clientName) implements ClientRegistration {
      public MetadataDocument {
        Objects.requireNonNull(clientIdUrl, "clientIdUrl");
        Objects.requireNonNull(clientName, "clientName");
      }
    }
  }

  /** Where OAuth tokens come from. */
  sealed interface OAuthGrant {
    /**
     * Tokens come from an injected provider (registered under {@code id}); on 401 the provider is
     * asked to refresh, once per rejected token.
     */
    record ProvidedToken(String id) implements OAuthGrant {
      public ProvidedToken {
        Objects.requireNonNull(id, "id");
      }
    }

    /** Machine-to-machine: the client credentials grant with a pre-registered client. */
    record ClientCredentials(String clientId, ClientAuth auth) implements OAuthGrant {
      public ClientCredentials {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(auth, "auth");
      }
    }

    /**
     * Authorization code with PKCE (S256). The redirect is completed by the completer registered
     * under {@code completerId} (a browser hand-off, or headless in tests and automation).
     */
    record AuthorizationCode(ClientRegistration client, String redirectUri, String completerId)
        implements OAuthGrant {
      public AuthorizationCode {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(redirectUri, "redirectUri");
        Objects.requireNonNull(completerId, "completerId");
      }
    }

    /**
     * Enterprise-managed authorization: the enterprise identity provider's ID token ({@code
     * idToken}) is exchanged at the provider's token endpoint (RFC 8693) for an identity assertion
     * grant (ID-JAG), which the pre-registered client then presents to the MCP server's
     * authorization server (RFC 7523 JWT bearer grant). No browser is involved.
     */
    record EnterpriseManaged(
        String clientId, ClientAuth auth, java.net.URI idpTokenEndpoint, SecretSource idToken)
        implements OAuthGrant {
      public EnterpriseManaged {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(idpTokenEndpoint, "idpTokenEndpoint");
        Objects.requireNonNull(idToken, "idToken");
      }
    }
  }
}
