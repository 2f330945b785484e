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
    List<URI> prmCandidates = new ArrayList<>();
    challenge.get("resource_metadata").map(URI::create).ifPresent(prmCandidates::add);
    String origin = origin(resourceUrl);
    String path = trimSlash(resourceUrl.getPath());
    if (!path.isEmpty()) {
      prmCandidates.add(URI.create(origin + "/.well-known/oauth-protected-resource" + path));
    }
    prmCandidates.add(URI.create(origin + "/.well-known/oauth-protected-resource"));
    Optional<JsonNode> prm = firstJson(prmCandidates);
    URI issuer =
        prm.map(p -> p.path("authorization_servers").path(0).asText(""))
            .filter(s -> !s.isEmpty())
            .map(URI::create)
            .orElse(URI.create(origin));
    Optional<URI> resource =
        prm.map(p -> p.path("resource").asText("")).filter(s -> !s.isEmpty()).map(URI::create);
    List<String> scopes = new ArrayList<>();
    prm.ifPresent(p -> p.path("scopes_supported").forEach(s -> scopes.add(s.asText())));

    String asOrigin = origin(issuer);
    String asPath = trimSlash(issuer.getPath());
    List<URI> asCandidates = new ArrayList<>();
    if (asPath.isEmpty()) {
      asCandidates.add(URI.create(asOrigin + "/.well-known/oauth-authorization-server"));
      asCandidates.add(URI.create(asOrigin + "/.well-known/openid-configuration"));
    } else {
      asCandidates.add(URI.create(asOrigin + "/.well-known/oauth-authorization-server" + asPath));
      asCandidates.add(URI.create(asOrigin + "/.well-known/openid-configuration" + asPath));
      asCandidates.add(URI.create(asOrigin + asPath + "/.well-known/openid-configuration"));
    }
    Optional<JsonNode> as = firstJson(asCandidates);
    URI token =
        as.map(a -> a.path("token_endpoint").asText(""))
            .filter(s -> !s.isEmpty())
            .map(URI::create)
            .orElse(URI.create(asOrigin + "/token"));
    URI authorize =
        as.map(a -> a.path("authorization_endpoint").asText(""))
            .filter(s -> !s.isEmpty())
            .map(URI::create)
            .orElse(URI.create(asOrigin + "/authorize"));
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
    List<String> methods = new ArrayList<>();
    as.ifPresent(
        a -> a.path("token_endpoint_auth_methods_supported").forEach(m -> methods.add(m.asText())));
    Optional<List<String>> pkce =
        as.filter(a -> a.has("code_challenge_methods_supported"))
            .map(
                a -> {
                  List<String> l = new ArrayList<>();
                  a.get("code_challenge_methods_supported").forEach(m -> l.add(m.asText()));
                  return List.copyOf(l);
                });
    Optional<URI> registration =
        as.map(a -> a.path("registration_endpoint").asText(""))
            .filter(x -> !x.isEmpty())
            .map(URI::create)
            .or(
                () ->
                    as.isEmpty()
                        ? Optional.of(URI.create(asOrigin + "/register"))
                        : Optional.empty());
    Optional<String> named =
        prm.map(p -> p.path("authorization_servers").path(0).asText("")).filter(x -> !x.isEmpty());
    String declared = as.map(a -> a.path("issuer").asText("")).orElse("");
    if (named.isPresent() && !declared.isEmpty() && !declared.equals(named.get())) {
      // RFC 8414 section 3.3: metadata whose issuer is not the one it was fetched for may be an
      // impersonation; none of its endpoints may be used.
      throw OAuthAuthenticator.failed(
          server,
          "authorization server metadata names issuer "
              + declared
              + " but was fetched for "
              + named.get()
              + "; refusing to use it",
          null);
    }
    URI issuerId = declared.isEmpty() ? issuer : URI.create(declared);
    boolean iss =
        as.map(a -> a.path("authorization_response_iss_parameter_supported").asBoolean(false))
            .orElse(false);
    boolean cimd =
        as.map(a -> a.path("client_id_metadata_document_supported").asBoolean(false)).orElse(false);
    return new Metadata(
        issuerId,
        token,
        authorize,
        registration,
        resource,
        List.copyOf(scopes),
        List.copyOf(methods),
        pkce,
        cimd,
        iss);
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
