package dev.flows.worker.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpAuth.OAuthGrant;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OAuth for one MCP server. With an injected {@link OAuthTokenProvider} it sends the provider's
 * token and asks for a refresh on 401, once per rejected token. Otherwise it runs the MCP
 * authorization flow when challenged: protected-resource metadata (from the challenge's {@code
 * resource_metadata}, then the well-known URLs), authorization-server metadata (RFC 8414 and OpenID
 * discovery, with the 2025-03-26 defaults when absent), then the configured grant (client
 * credentials, or authorization code with PKCE completed by a {@link RedirectCompleter}); the scope
 * comes from the challenge, else the resource's {@code scopes_supported}, else configuration; a 403
 * {@code insufficient_scope} steps up to the union of scopes. Tokens are never logged.
 */
final class OAuthAuthenticator implements HttpAuthenticator {
  private static final Logger LOG = LoggerFactory.getLogger(OAuthAuthenticator.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * Rejected tokens remembered for the loop breaker; a handful covers any realistic refresh chain.
   */
  private static final int REJECTED_MEMORY = 8;

  private final String server;
  private final URI resourceUrl;
  private final McpAuth.OAuth config;
  private final McpCredentials credentials;
  private final HttpClient http;
  private final McpClientConfig limits;
  private final Set<String> rejected = new LinkedHashSet<>();

  private String accessToken;
  private String refreshToken;
  private Set<String> grantedScopes = Set.of();
  private Metadata metadata;

  /** What discovery found. */
  record Metadata(
      URI issuer,
      URI tokenEndpoint,
      URI authorizationEndpoint,
      Optional<URI> resource,
      List<String> scopesSupported) {}

  OAuthAuthenticator(
      String server,
      URI resourceUrl,
      McpAuth.OAuth config,
      McpCredentials credentials,
      McpClientConfig limits) {
    this.server = server;
    this.resourceUrl = resourceUrl;
    this.config = config;
    this.credentials = credentials;
    this.limits = limits;
    this.http =
        HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NEVER)
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(limits.connectTimeout())
            .build();
  }

  @Override
  public synchronized Map<String, String> headers() {
    if (config.grant() instanceof OAuthGrant.ProvidedToken p && accessToken == null) {
      accessToken = credentials.tokenProvider(server, p.id()).token();
    }
    return accessToken == null ? Map.of() : Map.of("Authorization", "Bearer " + accessToken);
  }

  @Override
  public synchronized boolean onChallenge(HttpResponse<?> response) {
    WwwAuthenticate challenge =
        WwwAuthenticate.parse(response.headers().firstValue("WWW-Authenticate").orElse(""));
    String used = accessToken;
    if (used != null) {
      remember(used);
    }
    if (response.statusCode() == 403) {
      if (!"insufficient_scope".equals(challenge.get("error").orElse(""))) {
        return false;
      }
      return stepUp(challenge);
    }
    if (config.grant() instanceof OAuthGrant.ProvidedToken p) {
      OAuthTokenProvider provider = credentials.tokenProvider(server, p.id());
      String next = used == null ? provider.token() : provider.refresh(used);
      if (next == null || rejected.contains(next)) {
        return false;
      }
      accessToken = next;
      return true;
    }
    if (used != null && refreshToken != null) {
      try {
        tokenRequest(ensureMetadata(challenge), refreshForm());
        if (!rejected.contains(accessToken)) {
          return true;
        }
      } catch (McpException e) {
        LOG.info("mcp server {}: refresh failed, running the grant again", server);
      }
    }
    Set<String> scopes = chooseScopes(challenge, ensureMetadata(challenge));
    obtain(scopes);
    return !rejected.contains(accessToken);
  }

  private boolean stepUp(WwwAuthenticate challenge) {
    Set<String> wanted = new LinkedHashSet<>(grantedScopes);
    challenge.get("scope").ifPresent(s -> wanted.addAll(List.of(s.split(" "))));
    if (wanted.equals(grantedScopes) || config.grant() instanceof OAuthGrant.ProvidedToken) {
      return false;
    }
    obtain(wanted);
    return true;
  }

  private void remember(String token) {
    rejected.add(token);
    while (rejected.size() > REJECTED_MEMORY) {
      rejected.remove(rejected.iterator().next());
    }
  }

  private Set<String> chooseScopes(WwwAuthenticate challenge, Metadata md) {
    Optional<String> fromChallenge = challenge.get("scope");
    if (fromChallenge.isPresent()) {
      return new LinkedHashSet<>(List.of(fromChallenge.get().split(" ")));
    }
    if (!md.scopesSupported().isEmpty()) {
      return new LinkedHashSet<>(md.scopesSupported());
    }
    return new LinkedHashSet<>(config.scopes());
  }

  private void obtain(Set<String> scopes) {
    Metadata md = metadata;
    Map<String, String> form = new LinkedHashMap<>();
    switch (config.grant()) {
      case OAuthGrant.ClientCredentials cc -> {
        form.put("grant_type", "client_credentials");
      }
      case OAuthGrant.AuthorizationCode ac -> {
        String verifier = randomToken(48);
        String state = randomToken(24);
        Map<String, String> q = new LinkedHashMap<>();
        q.put("response_type", "code");
        q.put("client_id", ac.clientId());
        q.put("redirect_uri", ac.redirectUri());
        q.put("code_challenge", s256(verifier));
        q.put("code_challenge_method", "S256");
        q.put("state", state);
        if (!scopes.isEmpty()) {
          q.put("scope", String.join(" ", scopes));
        }
        q.put("resource", md.resource().orElse(resourceUrl).toString());
        URI authUrl = withQuery(md.authorizationEndpoint(), q);
        URI redirect = credentials.completer(server, ac.completerId()).complete(authUrl);
        Map<String, String> back = query(redirect);
        if (!state.equals(back.get("state"))) {
          throw failed("authorization redirect came back with a wrong state", null);
        }
        String code = back.get("code");
        if (code == null) {
          throw failed("authorization refused: " + back.getOrDefault("error", "no code"), null);
        }
        form.put("grant_type", "authorization_code");
        form.put("code", code);
        form.put("redirect_uri", ac.redirectUri());
        form.put("code_verifier", verifier);
      }
      case OAuthGrant.ProvidedToken p ->
          throw failed("a provided token cannot be re-obtained", null);
    }
    if (!scopes.isEmpty()) {
      form.put("scope", String.join(" ", scopes));
    }
    form.put("resource", md.resource().orElse(resourceUrl).toString());
    tokenRequest(md, form);
    grantedScopes = Set.copyOf(scopes);
  }

  private Map<String, String> refreshForm() {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "refresh_token");
    form.put("refresh_token", refreshToken);
    return form;
  }

  private void tokenRequest(Metadata md, Map<String, String> form) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(md.tokenEndpoint())
            .timeout(limits.connectTimeout())
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
    String clientId;
    Optional<McpAuth.SecretSource> secret;
    McpAuth.TokenEndpointAuth method;
    switch (config.grant()) {
      case OAuthGrant.ClientCredentials cc -> {
        clientId = cc.clientId();
        secret = Optional.of(cc.clientSecret());
        method = cc.method();
      }
      case OAuthGrant.AuthorizationCode ac -> {
        clientId = ac.clientId();
        secret = ac.clientSecret();
        method = ac.method();
      }
      case OAuthGrant.ProvidedToken p ->
          throw failed("no token endpoint for provided tokens", null);
    }
    Map<String, String> body = new LinkedHashMap<>(form);
    switch (method) {
      case CLIENT_SECRET_BASIC -> {
        String s =
            credentials.secret(
                server,
                secret.orElseThrow(() -> failed("client_secret_basic needs a secret", null)));
        String pair = urlEncode(clientId) + ":" + urlEncode(s);
        b.header(
            "Authorization",
            "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
      }
      case CLIENT_SECRET_POST -> {
        body.put("client_id", clientId);
        body.put(
            "client_secret",
            credentials.secret(
                server,
                secret.orElseThrow(() -> failed("client_secret_post needs a secret", null))));
      }
      case NONE -> body.put("client_id", clientId);
    }
    JsonNode answer;
    try {
      HttpResponse<String> r =
          http.send(
              b.POST(HttpRequest.BodyPublishers.ofString(form(body))).build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw failed(
            "token endpoint answered HTTP "
                + r.statusCode()
                + " "
                + JSON.readTree(r.body().isBlank() ? "{}" : r.body()).path("error").asText(""),
            null);
      }
      answer = JSON.readTree(r.body());
    } catch (IOException e) {
      throw failed("token endpoint unreachable or unreadable: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failed("interrupted", e);
    }
    String token = answer.path("access_token").asText("");
    if (token.isEmpty()) {
      throw failed("token endpoint answered without access_token", null);
    }
    accessToken = token;
    if (answer.hasNonNull("refresh_token")) {
      refreshToken = answer.get("refresh_token").asText();
    }
    LOG.info("mcp server {}: obtained an access token ({})", server, form.get("grant_type"));
  }

  private Metadata ensureMetadata(WwwAuthenticate challenge) {
    if (metadata == null || challenge.get("resource_metadata").isPresent()) {
      metadata = discover(challenge);
    }
    return metadata;
  }

  private Metadata discover(WwwAuthenticate challenge) {
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
    return new Metadata(issuer, token, authorize, resource, List.copyOf(scopes));
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
        throw failed("interrupted during discovery", e);
      }
    }
    return Optional.empty();
  }

  private McpException failed(String why, Throwable cause) {
    return new McpException(
        McpDiagnostic.AUTH_FAILED,
        server,
        "oauth: " + why,
        "check the OAuth client configuration",
        cause);
  }

  private static String origin(URI u) {
    return u.getScheme() + "://" + u.getRawAuthority();
  }

  private static String trimSlash(String p) {
    if (p == null || p.equals("/")) {
      return "";
    }
    return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
  }

  private static String randomToken(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  static String s256(String verifier) {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String urlEncode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String form(Map<String, String> m) {
    return m.entrySet().stream()
        .map(e -> urlEncode(e.getKey()) + "=" + urlEncode(e.getValue()))
        .collect(Collectors.joining("&"));
  }

  private static URI withQuery(URI base, Map<String, String> q) {
    String sep = base.getRawQuery() == null ? "?" : "&";
    return URI.create(base + sep + form(q));
  }

  static Map<String, String> query(URI u) {
    Map<String, String> out = new LinkedHashMap<>();
    String q = u.getRawQuery();
    if (q == null) {
      return out;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      out.putIfAbsent(
          URLDecoder.decode(k, StandardCharsets.UTF_8),
          URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return out;
  }

  @Override
  public String toString() {
    return "oauth(" + config.grant().getClass().getSimpleName() + ")";
  }
}
