package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.mcp.McpClientConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OAuth discovery for one MCP server: its protected-resource metadata, then its authorization
 * server's metadata, at the well-known places the MCP authorization spec names, with the defaults
 * it gives when a document is missing.
 */
final class OAuthDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(OAuthDiscovery.class);
  private static final ObjectMapper JSON = Jackson.mapper();

  /** What discovery found. */
  record Metadata(
      URI issuer,
      URI tokenEndpoint,
      URI authorizationEndpoint,
      Optional<URI> registrationEndpoint,
      Optional<URI> resource,
      List<String> scopesSupported,
      List<String> authMethodsSupported,
      Optional<List<String>> pkceMethods,
      boolean metadataDocumentClientIds,
      boolean issParameterSupported) {}

  private final String server;
  private final URI resourceUrl;
  private final McpClientConfig limits;
  private final HttpClient http;

  OAuthDiscovery(String server, URI resourceUrl, McpClientConfig limits, HttpClient http) {
    this.server = server;
    this.resourceUrl = resourceUrl;
    this.limits = limits;
    this.http = http;
  }

  Metadata discover(WwwAuthenticate challenge) {
    String origin = origin(resourceUrl);
    Optional<JsonNode> prm = protectedResource(challenge, origin);
    Optional<String> named =
        prm.map(p -> p.path("authorization_servers").path(0).asText("")).filter(x -> !x.isEmpty());
    URI issuer = named.map(URI::create).orElse(URI.create(origin));
    Optional<URI> resource = prm.flatMap(p -> uri(p, "resource"));
    if (resource.isPresent() && !covers(resource.get(), resourceUrl)) {
      throw OAuthAuthenticator.failed(
          server,
          "protected resource metadata names "
              + resource.get()
              + ", which is not this server ("
              + resourceUrl
              + "); refusing to authorize",
          null);
    }
    String asOrigin = origin(issuer);
    Optional<JsonNode> as = authorizationServer(issuer);
    URI issuerId = checkedIssuer(as, named).orElse(issuer);
    Optional<URI> registration =
        as.isEmpty()
            ? Optional.of(URI.create(asOrigin + "/register"))
            : as.flatMap(a -> uri(a, "registration_endpoint"));
    Optional<List<String>> pkce =
        as.filter(a -> a.has("code_challenge_methods_supported"))
            .map(a -> texts(a, "code_challenge_methods_supported"));
    return new Metadata(
        issuerId,
        as.flatMap(a -> uri(a, "token_endpoint")).orElse(URI.create(asOrigin + "/token")),
        as.flatMap(a -> uri(a, "authorization_endpoint"))
            .orElse(URI.create(asOrigin + "/authorize")),
        registration,
        resource,
        prm.map(p -> texts(p, "scopes_supported")).orElse(List.of()),
        as.map(a -> texts(a, "token_endpoint_auth_methods_supported")).orElse(List.of()),
        pkce,
        flag(as, "client_id_metadata_document_supported"),
        flag(as, "authorization_response_iss_parameter_supported"));
  }

  /** The protected resource metadata: where the challenge points, else the well-known places. */
  private Optional<JsonNode> protectedResource(WwwAuthenticate challenge, String origin) {
    List<URI> candidates = new ArrayList<>();
    challenge.get("resource_metadata").map(URI::create).ifPresent(candidates::add);
    String path = trimSlash(resourceUrl.getPath());
    if (!path.isEmpty()) {
      candidates.add(URI.create(origin + "/.well-known/oauth-protected-resource" + path));
    }
    candidates.add(URI.create(origin + "/.well-known/oauth-protected-resource"));
    return firstJson(candidates);
  }

  /** The authorization server's metadata (RFC 8414, then OpenID Connect discovery). */
  private Optional<JsonNode> authorizationServer(URI issuer) {
    String asOrigin = origin(issuer);
    String asPath = trimSlash(issuer.getPath());
    List<URI> candidates = new ArrayList<>();
    if (asPath.isEmpty()) {
      candidates.add(URI.create(asOrigin + "/.well-known/oauth-authorization-server"));
      candidates.add(URI.create(asOrigin + "/.well-known/openid-configuration"));
    } else {
      candidates.add(URI.create(asOrigin + "/.well-known/oauth-authorization-server" + asPath));
      candidates.add(URI.create(asOrigin + "/.well-known/openid-configuration" + asPath));
      candidates.add(URI.create(asOrigin + asPath + "/.well-known/openid-configuration"));
    }
    return firstJson(candidates);
  }

  /**
   * The issuer the metadata declares, refused when it is not the one it was fetched for (RFC 8414
   * section 3.3: such metadata may be an impersonation; none of its endpoints may be used).
   */
  private Optional<URI> checkedIssuer(Optional<JsonNode> as, Optional<String> named) {
    String declared = as.map(a -> a.path("issuer").asText("")).orElse("");
    if (named.isPresent() && !declared.isEmpty() && !declared.equals(named.get())) {
      throw OAuthAuthenticator.failed(
          server,
          "authorization server metadata names issuer "
              + declared
              + " but was fetched for "
              + named.get()
              + "; refusing to use it",
          null);
    }
    return declared.isEmpty() ? Optional.empty() : Optional.of(URI.create(declared));
  }

  private static Optional<URI> uri(JsonNode metadata, String field) {
    return Optional.of(metadata.path(field).asText("")).filter(x -> !x.isEmpty()).map(URI::create);
  }

  private static List<String> texts(JsonNode metadata, String field) {
    List<String> l = new ArrayList<>();
    metadata.path(field).forEach(m -> l.add(m.asText()));
    return List.copyOf(l);
  }

  private static boolean flag(Optional<JsonNode> metadata, String field) {
    return metadata.map(a -> a.path(field).asBoolean(false)).orElse(false);
  }

  /** Whether the resource named in metadata is this server: same origin, and a path prefix. */
  static boolean covers(URI resource, URI server) {
    if (!origin(resource).equalsIgnoreCase(origin(server))) {
      return false;
    }
    String rp = trimSlash(resource.getPath());
    String sp = trimSlash(server.getPath());
    return sp.equals(rp) || sp.startsWith(rp + "/") || rp.isEmpty();
  }

  private Optional<JsonNode> firstJson(List<URI> candidates) {
    for (URI u : candidates) {
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(u)
                    .timeout(limits.connectTimeout())
                    .header("Accept", "application/json")
                    .header("MCP-Protocol-Version", "2025-11-25")
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return Optional.of(JSON.readTree(r.body()));
        }
      } catch (IOException e) {
        LOG.debug("discovery at {} failed: {}", u, e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw OAuthAuthenticator.failed(server, "interrupted during discovery", e);
      }
    }
    return Optional.empty();
  }

  static String origin(URI u) {
    return u.getScheme() + "://" + u.getRawAuthority();
  }

  static String trimSlash(String p) {
    if (p == null || p.equals("/")) {
      return "";
    }
    return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
  }
}
