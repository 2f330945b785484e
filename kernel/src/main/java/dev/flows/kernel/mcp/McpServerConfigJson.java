package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.mcp.McpAuth.ClientAuth;
import dev.flows.kernel.mcp.McpAuth.ClientRegistration;
import dev.flows.kernel.mcp.McpAuth.OAuthGrant;
import dev.flows.kernel.mcp.McpAuth.SecretSource;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The non-secret form of a server's connection config, as frozen into a run's journal so that a
 * replay on any worker connects the same way. Secrets stay out: only the names of the variables or
 * providers that hold them are written.
 */
public final class McpServerConfigJson {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private McpServerConfigJson() {}

  public static ObjectNode write(McpServerConfig c) {
    ObjectNode n = JSON.objectNode();
    switch (c) {
      case McpServerConfig.Stdio s -> {
        n.put("transport", "stdio").put("name", s.name()).put("command", s.command());
        strings(n.putArray("args"), s.args());
        strings(n.putArray("envAllowlist"), s.envAllowlist());
        ObjectNode env = n.putObject("env");
        s.env().forEach(env::put);
        s.cwd().ifPresent(d -> n.put("cwd", d));
      }
      case McpServerConfig.Http h -> {
        n.put("transport", "http").put("name", h.name()).put("url", h.url().toString());
        ObjectNode headers = n.putObject("headers");
        h.headers().forEach(headers::put);
        n.set("auth", auth(h.auth()));
      }
    }
    // Only a pin is written, so the frozen form of an unpinned server stays as it always was.
    if (c.protocol() != McpProtocol.AUTO) {
      n.put("protocol", c.protocol().wire());
    }
    return n;
  }

  private static void strings(ArrayNode a, List<String> values) {
    values.forEach(a::add);
  }

  private static ObjectNode auth(McpAuth a) {
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
        strings(n.putArray("scopes"), o.scopes());
        ObjectNode g = n.putObject("grant");
        switch (o.grant()) {
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
      }
    }
    return n;
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

  private static ClientAuth readClientAuth(JsonNode n) {
    return switch (n.path("method").asText()) {
      case "client_secret_basic" -> new ClientAuth.SecretBasic(readSecret(n.path("secret")));
      case "client_secret_post" -> new ClientAuth.SecretPost(readSecret(n.path("secret")));
      case "private_key_jwt" -> new ClientAuth.PrivateKeyJwt(readSecret(n.path("key")));
      default -> new ClientAuth.NoSecret();
    };
  }

  private static ObjectNode secret(SecretSource s) {
    return switch (s) {
      case SecretSource.EnvVar e -> JSON.objectNode().put("env", e.variable());
      case SecretSource.Provider p -> JSON.objectNode().put("provider", p.id());
    };
  }

  public static McpServerConfig read(JsonNode n) {
    McpProtocol protocol =
        McpProtocol.fromWire(n.path("protocol").asText("auto"))
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "unknown protocol in frozen server config: " + n.path("protocol")));
    return switch (readUnpinned(n)) {
      case McpServerConfig.Stdio s -> s.withProtocol(protocol);
      case McpServerConfig.Http h -> h.withProtocol(protocol);
    };
  }

  private static McpServerConfig readUnpinned(JsonNode n) {
    String name = n.path("name").asText();
    return switch (n.path("transport").asText()) {
      case "stdio" ->
          new McpServerConfig.Stdio(
              name,
              n.path("command").asText(),
              strings(n.path("args")),
              strings(n.path("envAllowlist")),
              stringMap(n.path("env")),
              n.hasNonNull("cwd") ? Optional.of(n.get("cwd").asText()) : Optional.empty());
      case "http" ->
          new McpServerConfig.Http(
              name,
              URI.create(n.path("url").asText()),
              stringMap(n.path("headers")),
              readAuth(n.path("auth")));
      default ->
          throw new IllegalArgumentException(
              "unknown transport in frozen server config: " + n.path("transport"));
    };
  }

  private static McpAuth readAuth(JsonNode n) {
    return switch (n.path("mode").asText("none")) {
      case "none" -> new McpAuth.None();
      case "api-token" ->
          new McpAuth.ApiToken(
              n.path("header").asText(),
              n.hasNonNull("scheme") ? Optional.of(n.get("scheme").asText()) : Optional.empty(),
              readSecret(n.path("token")));
      case "oauth" -> {
        JsonNode g = n.path("grant");
        OAuthGrant grant =
            switch (g.path("kind").asText()) {
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
        yield new McpAuth.OAuth(grant, strings(n.path("scopes")));
      }
      default -> throw new IllegalArgumentException("unknown auth mode " + n.path("mode"));
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

  private static Map<String, String> stringMap(JsonNode o) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }
}
