package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.json.StrictJson;
import dev.flows.kernel.mcp.McpAuth.ClientAuth;
import dev.flows.kernel.mcp.McpAuth.ClientRegistration;
import dev.flows.kernel.mcp.McpAuth.OAuthGrant;
import dev.flows.kernel.mcp.McpAuth.SecretSource;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The one codec of an MCP server's auth, in its two forms. The frozen form ({@link #write}, {@link
 * #read}) is what a run's journal holds, so that a replay on any worker authenticates the same way:
 * structured, every default spelled out. The user form ({@link #readUserForm}) is what a person
 * writes in flows.json: flat, with defaults ({@code Authorization: Bearer}, the token endpoint
 * method from the secret named) and refused strictly. Secrets stay out of both: only the names of
 * the variables or providers that hold them are written.
 */
public final class McpAuthJson {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** What a variable holding a secret may be called (the user form names it, never the secret). */
  public static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private McpAuthJson() {}

  /** How the user form's reader refuses and reads, as the file it reads says. */
  public interface UserForm {
    /** The strict reader, refusing with this file's places. */
    StrictJson json();

    /** A refusal at {@code pointer} in this file. */
    FlowsException refuse(String pointer, String problem, String fix);

    /** {@code value} (at {@code pointer}) as a URL this file may name. */
    URI url(String value, String pointer);
  }

  /** The frozen form of {@code a}. */
  public static ObjectNode write(McpAuth a) {
    ObjectNode n = JSON.objectNode();
    switch (a) {
      case McpAuth.None none -> n.put("mode", "none");
      case McpAuth.ApiToken t -> {
        n.put("mode", "api-token").put("header", t.headerName());
        t.scheme().ifPresent(s -> n.put("scheme", s));
        n.set("token", secret(t.token()));
      }
      case McpAuth.OAuth o -> {
        n.put("mode", "oauth");
        o.scopes().forEach(n.putArray("scopes")::add);
        n.set("grant", grant(o.grant()));
      }
    }
    return n;
  }

  private static ObjectNode grant(OAuthGrant grant) {
    ObjectNode g = JSON.objectNode();
    switch (grant) {
      case OAuthGrant.ProvidedToken p -> g.put("kind", "provided").put("id", p.id());
      case OAuthGrant.ClientCredentials cc -> {
        g.put("kind", "client_credentials").put("clientId", cc.clientId());
        g.set("clientAuth", clientAuth(cc.auth()));
      }
      case OAuthGrant.EnterpriseManaged em -> {
        g.put("kind", "enterprise_managed").put("clientId", em.clientId());
        g.set("clientAuth", clientAuth(em.auth()));
        g.put("idpTokenEndpoint", em.idpTokenEndpoint().toString());
        g.set("idToken", secret(em.idToken()));
      }
      case OAuthGrant.AuthorizationCode ac -> {
        g.put("kind", "authorization_code");
        g.put("redirectUri", ac.redirectUri()).put("completerId", ac.completerId());
        ObjectNode reg = g.putObject("client");
        switch (ac.client()) {
          case ClientRegistration.PreRegistered p -> {
            reg.put("kind", "pre_registered").put("clientId", p.clientId());
            reg.set("clientAuth", clientAuth(p.auth()));
          }
          case ClientRegistration.Dynamic d ->
              reg.put("kind", "dynamic").put("clientName", d.clientName());
          case ClientRegistration.MetadataDocument m ->
              reg.put("kind", "metadata_document")
                  .put("clientIdUrl", m.clientIdUrl())
                  .put("clientName", m.clientName());
        }
      }
    }
    return g;
  }

  private static ObjectNode clientAuth(ClientAuth a) {
    ObjectNode n = JSON.objectNode();
    switch (a) {
      case ClientAuth.SecretBasic b ->
          n.put("method", "client_secret_basic").set("secret", secret(b.secret()));
      case ClientAuth.SecretPost p ->
          n.put("method", "client_secret_post").set("secret", secret(p.secret()));
      case ClientAuth.NoSecret none -> n.put("method", "none");
      case ClientAuth.PrivateKeyJwt k ->
          n.put("method", "private_key_jwt").set("key", secret(k.privateKeyPem()));
    }
    return n;
  }

  private static ObjectNode secret(SecretSource s) {
    return switch (s) {
      case SecretSource.EnvVar e -> JSON.objectNode().put("env", e.variable());
      case SecretSource.Provider p -> JSON.objectNode().put("provider", p.id());
    };
  }

  /** An auth from its frozen form; a missing one is no auth. */
  public static McpAuth read(JsonNode n) {
    return switch (n.path("mode").asText("none")) {
      case "none" -> new McpAuth.None();
      case "api-token" ->
          new McpAuth.ApiToken(
              n.path("header").asText(),
              n.hasNonNull("scheme") ? Optional.of(n.get("scheme").asText()) : Optional.empty(),
              readSecret(n.path("token")));
      case "oauth" -> new McpAuth.OAuth(readGrant(n.path("grant")), strings(n.path("scopes")));
      default -> throw new IllegalArgumentException("unknown auth mode " + n.path("mode"));
    };
  }

  private static OAuthGrant readGrant(JsonNode g) {
    return switch (g.path("kind").asText()) {
      case "provided" -> new OAuthGrant.ProvidedToken(g.path("id").asText());
      case "client_credentials" ->
          new OAuthGrant.ClientCredentials(
              g.path("clientId").asText(), readClientAuth(g.path("clientAuth")));
      case "enterprise_managed" ->
          new OAuthGrant.EnterpriseManaged(
              g.path("clientId").asText(),
              readClientAuth(g.path("clientAuth")),
              URI.create(g.path("idpTokenEndpoint").asText()),
              readSecret(g.path("idToken")));
      case "authorization_code" -> {
        JsonNode c = g.path("client");
        ClientRegistration reg =
            switch (c.path("kind").asText()) {
              case "pre_registered" ->
                  new ClientRegistration.PreRegistered(
                      c.path("clientId").asText(), readClientAuth(c.path("clientAuth")));
              case "metadata_document" ->
                  new ClientRegistration.MetadataDocument(
                      c.path("clientIdUrl").asText(), c.path("clientName").asText());
              default -> new ClientRegistration.Dynamic(c.path("clientName").asText());
            };
        yield new OAuthGrant.AuthorizationCode(
            reg, g.path("redirectUri").asText(), g.path("completerId").asText());
      }
      default -> throw new IllegalArgumentException("unknown oauth grant " + g);
    };
  }

  private static ClientAuth readClientAuth(JsonNode n) {
    return switch (n.path("method").asText()) {
      case "client_secret_basic" -> new ClientAuth.SecretBasic(readSecret(n.path("secret")));
      case "client_secret_post" -> new ClientAuth.SecretPost(readSecret(n.path("secret")));
      case "private_key_jwt" -> new ClientAuth.PrivateKeyJwt(readSecret(n.path("key")));
      default -> new ClientAuth.NoSecret();
    };
  }

  private static SecretSource readSecret(JsonNode n) {
    return n.has("env")
        ? new SecretSource.EnvVar(n.get("env").asText())
        : new SecretSource.Provider(n.path("provider").asText());
  }

  private static List<String> strings(JsonNode a) {
    List<String> out = new ArrayList<>();
    a.forEach(v -> out.add(v.asText()));
    return out;
  }

  /** An auth as a user writes it in flows.json at {@code ptr}, refused as {@code in} says. */
  public static McpAuth readUserForm(JsonNode n, String ptr, UserForm in) {
    in.json().object(n, StrictJson.Place.at(ptr));
    String mode = in.json().string(n, ptr, "mode");
    return switch (mode) {
      case "none" -> {
        in.json().onlyFields(n, ptr, Set.of("mode"));
        yield new McpAuth.None();
      }
      case "api-token" -> {
        in.json().onlyFields(n, ptr, Set.of("mode", "header", "scheme", "tokenEnv", "provider"));
        String header = in.json().optionalString(n, ptr, "header").orElse("Authorization");
        Optional<String> scheme =
            n.has("scheme")
                ? Optional.of(in.json().string(n, ptr, "scheme")).filter(s -> !s.isEmpty())
                : Optional.of("Bearer");
        yield new McpAuth.ApiToken(header, scheme, secret(in, n, ptr, "tokenEnv", "provider"));
      }
      case "oauth" -> oauth(in, n, ptr);
      default ->
          throw in.refuse(
              ptr + "/mode",
              "unknown auth mode '" + mode + "'",
              "use one of none, api-token, oauth");
    };
  }

  private static McpAuth oauth(UserForm in, JsonNode n, String ptr) {
    String grant = in.json().string(n, ptr, "grant");
    List<String> scopes = in.json().optionalStrings(n, ptr, "scopes").orElse(List.of());
    OAuthGrant g =
        switch (grant) {
          case "provided" -> {
            in.json().onlyFields(n, ptr, Set.of("mode", "grant", "provider", "scopes"));
            yield new OAuthGrant.ProvidedToken(in.json().string(n, ptr, "provider"));
          }
          case "client_credentials" -> {
            in.json().onlyFields(n, ptr, withClientAuth());
            yield new OAuthGrant.ClientCredentials(
                in.json().string(n, ptr, "clientId"), clientAuth(in, n, ptr));
          }
          case "enterprise_managed" -> enterpriseManaged(in, n, ptr);
          case "authorization_code" -> authorizationCode(in, n, ptr);
          default ->
              throw in.refuse(
                  ptr + "/grant",
                  "unknown oauth grant '" + grant + "'",
                  "use one of provided, client_credentials, authorization_code,"
                      + " enterprise_managed");
        };
    return new McpAuth.OAuth(g, scopes);
  }

  /** The keys of a grant whose client authenticates at the token endpoint, plus {@code more}. */
  private static Set<String> withClientAuth(String... more) {
    Set<String> keys =
        new HashSet<>(
            List.of(
                "mode",
                "grant",
                "clientId",
                "clientSecretEnv",
                "privateKeyEnv",
                "tokenEndpointAuth",
                "scopes"));
    keys.addAll(List.of(more));
    return keys;
  }

  private static OAuthGrant enterpriseManaged(UserForm in, JsonNode n, String ptr) {
    in.json()
        .onlyFields(n, ptr, withClientAuth("idpTokenEndpoint", "idTokenEnv", "idTokenProvider"));
    return new OAuthGrant.EnterpriseManaged(
        in.json().string(n, ptr, "clientId"),
        clientAuth(in, n, ptr),
        in.url(in.json().string(n, ptr, "idpTokenEndpoint"), ptr + "/idpTokenEndpoint"),
        secret(in, n, ptr, "idTokenEnv", "idTokenProvider"));
  }

  private static OAuthGrant authorizationCode(UserForm in, JsonNode n, String ptr) {
    in.json()
        .onlyFields(
            n, ptr, withClientAuth("clientIdUrl", "clientName", "redirectUri", "completer"));
    String clientName = in.json().optionalString(n, ptr, "clientName").orElse("flows");
    ClientRegistration reg;
    if (n.has("clientId")) {
      reg =
          new ClientRegistration.PreRegistered(
              in.json().string(n, ptr, "clientId"), clientAuth(in, n, ptr));
    } else if (n.has("clientIdUrl")) {
      reg =
          new ClientRegistration.MetadataDocument(
              in.json().string(n, ptr, "clientIdUrl"), clientName);
    } else {
      reg = new ClientRegistration.Dynamic(clientName);
    }
    return new OAuthGrant.AuthorizationCode(
        reg, in.json().string(n, ptr, "redirectUri"), in.json().string(n, ptr, "completer"));
  }

  /**
   * How the client authenticates at the token endpoint. Defaults to client_secret_basic when a
   * secret variable is named, none otherwise.
   */
  private static ClientAuth clientAuth(UserForm in, JsonNode n, String ptr) {
    String method =
        n.has("tokenEndpointAuth")
            ? in.json().string(n, ptr, "tokenEndpointAuth")
            : n.has("privateKeyEnv")
                ? "private_key_jwt"
                : n.has("clientSecretEnv") ? "client_secret_basic" : "none";
    return switch (method) {
      case "client_secret_basic" ->
          new ClientAuth.SecretBasic(
              new SecretSource.EnvVar(envName(in, n, ptr, "clientSecretEnv")));
      case "client_secret_post" ->
          new ClientAuth.SecretPost(
              new SecretSource.EnvVar(envName(in, n, ptr, "clientSecretEnv")));
      case "private_key_jwt" ->
          new ClientAuth.PrivateKeyJwt(
              new SecretSource.EnvVar(envName(in, n, ptr, "privateKeyEnv")));
      case "none" -> new ClientAuth.NoSecret();
      default ->
          throw in.refuse(
              ptr + "/tokenEndpointAuth",
              "unknown token endpoint auth method '" + method + "'",
              "use client_secret_basic, client_secret_post, private_key_jwt or none");
    };
  }

  private static SecretSource secret(
      UserForm in, JsonNode n, String ptr, String envKey, String providerKey) {
    if (n.has(envKey) == n.has(providerKey)) {
      throw in.refuse(
          ptr,
          "needs exactly one of \"" + envKey + "\" or \"" + providerKey + "\"",
          "name the environment variable holding the token (never the token itself)");
    }
    return n.has(envKey)
        ? new SecretSource.EnvVar(envName(in, n, ptr, envKey))
        : new SecretSource.Provider(in.json().string(n, ptr, providerKey));
  }

  /** {@code key}'s value, which must name an environment variable, never hold a secret. */
  public static String envName(UserForm in, JsonNode n, String ptr, String key) {
    String v = in.json().string(n, ptr, key);
    if (!ENV_NAME.matcher(v).matches()) {
      throw in.refuse(
          ptr + "/" + key,
          "must name an environment variable, not hold a secret",
          "write the variable's name (^[A-Za-z_][A-Za-z0-9_]*$) and export the secret there");
    }
    return v;
  }
}
