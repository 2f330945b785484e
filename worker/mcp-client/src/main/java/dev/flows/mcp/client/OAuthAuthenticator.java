package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.json.Jackson;
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
import java.time.InstantSource;
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
  private static final ObjectMapper JSON = Jackson.mapper();
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
  private final OAuthDiscovery discovery;
  private final McpClientConfig limits;
  private final InstantSource clock;
  private final Set<String> rejected = new LinkedHashSet<>();

  private String accessToken;
  private String refreshToken;
  private Set<String> grantedScopes = Set.of();
  private OAuthDiscovery.Metadata metadata;
  private Client client;
  private URI clientIssuer;
  private URI tokenIssuer;
  private String registeredSecret = "";

  /** The client as the authorization server knows it (after any registration). */
  private record Client(String id, McpAuth.ClientAuth auth) {}

  OAuthAuthenticator(
      String server,
      URI resourceUrl,
      McpAuth.OAuth config,
      McpCredentials credentials,
      McpClientConfig limits,
      InstantSource clock) {
    this.clock = clock;
    this.server = server;
    this.resourceUrl = resourceUrl;
    this.config = config;
    this.credentials = credentials;
    this.limits = limits;
    this.http = McpHttp.newHttpClient(limits.connectTimeout());
    this.discovery = new OAuthDiscovery(server, resourceUrl, limits, http);
  }

  @Override
  public synchronized Map<String, String> headers() {
    if (config.grant() instanceof OAuthGrant.ProvidedToken p && accessToken == null) {
      accessToken = credentials.tokenProvider(server, p.id()).token();
    }
    return accessToken == null ? Map.of() : Map.of("Authorization", "Bearer " + accessToken);
  }

  @Override
  public synchronized boolean onChallenge(int status, java.net.http.HttpHeaders headers) {
    WwwAuthenticate challenge =
        WwwAuthenticate.parse(headers.firstValue("WWW-Authenticate").orElse(""));
    String used = accessToken;
    if (used != null) {
      remember(used);
    }
    if (status == 403) {
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
    if (used != null
        && refreshToken != null
        && ensureMetadata(challenge).issuer().equals(tokenIssuer)) {
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

  private Set<String> chooseScopes(WwwAuthenticate challenge, OAuthDiscovery.Metadata md) {
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
    OAuthDiscovery.Metadata md = metadata;
    String resource = md.resource().orElse(resourceUrl).toString();
    Map<String, String> form = new LinkedHashMap<>();
    switch (config.grant()) {
      case OAuthGrant.ClientCredentials cc -> {
        client = new Client(cc.clientId(), cc.auth());
        form.put("grant_type", "client_credentials");
      }
      case OAuthGrant.AuthorizationCode ac -> {
        if (md.pkceMethods().isPresent() && !md.pkceMethods().get().contains("S256")) {
          throw failed("the authorization server does not support PKCE S256; refusing", null);
        }
        Client c = client(ac, md);
        String verifier = randomToken(48);
        String state = randomToken(24);
        Map<String, String> q = new LinkedHashMap<>();
        q.put("response_type", "code");
        q.put("client_id", c.id());
        q.put("redirect_uri", ac.redirectUri());
        q.put("code_challenge", s256(verifier));
        q.put("code_challenge_method", "S256");
        q.put("state", state);
        if (!scopes.isEmpty()) {
          q.put("scope", String.join(" ", scopes));
        }
        q.put("resource", resource);
        URI authUrl = withQuery(md.authorizationEndpoint(), q);
        URI redirect = credentials.completer(server, ac.completerId()).complete(authUrl);
        Map<String, String> back = query(redirect);
        if (!state.equals(back.get("state"))) {
          throw failed("authorization redirect came back with a wrong state", null);
        }
        checkIssuer(back.get("iss"), md);
        String code = back.get("code");
        if (code == null) {
          throw failed("authorization refused: " + back.getOrDefault("error", "no code"), null);
        }
        form.put("grant_type", "authorization_code");
        form.put("code", code);
        form.put("redirect_uri", ac.redirectUri());
        form.put("code_verifier", verifier);
      }
      case OAuthGrant.EnterpriseManaged em -> {
        client = new Client(em.clientId(), em.auth());
        form.put("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer");
        form.put("assertion", identityAssertion(em, md, resource, scopes));
      }
      case OAuthGrant.ProvidedToken p ->
          throw failed("a provided token cannot be re-obtained", null);
    }
    if (!scopes.isEmpty()) {
      form.put("scope", String.join(" ", scopes));
    }
    form.put("resource", resource);
    tokenRequest(md, form);
    grantedScopes = Set.copyOf(scopes);
  }

  /**
   * RFC 8693 token exchange at the enterprise identity provider: its ID token for an identity
   * assertion grant (ID-JAG) addressed to this server's authorization server and resource.
   */
  private String identityAssertion(
      OAuthGrant.EnterpriseManaged em,
      OAuthDiscovery.Metadata md,
      String resource,
      Set<String> scopes) {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange");
    form.put("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag");
    form.put("subject_token", credentials.secret(server, em.idToken()));
    form.put("subject_token_type", "urn:ietf:params:oauth:token-type:id_token");
    form.put("audience", md.issuer().toString());
    form.put("resource", resource);
    if (!scopes.isEmpty()) {
      form.put("scope", String.join(" ", scopes));
    }
    JsonNode answer = send(formRequest(em.idpTokenEndpoint()), form, "identity provider");
    String jag = answer.path("access_token").asText("");
    if (jag.isEmpty()) {
      throw failed("identity provider answered the token exchange without access_token", null);
    }
    return jag;
  }

  /**
   * RFC 9207: a present {@code iss} must be the recorded issuer, compared as plain strings (no URL
   * normalization); a server that advertises the parameter must send it. Otherwise a code from
   * another authorization server (a mix-up attack) would be redeemed here.
   */
  private void checkIssuer(String iss, OAuthDiscovery.Metadata md) {
    if (iss == null) {
      if (md.issParameterSupported()) {
        throw failed(
            "the authorization server advertises the iss parameter but the redirect has none;"
                + " refusing the code",
            null);
      }
      return;
    }
    if (!iss.equals(md.issuer().toString())) {
      throw failed(
          "the authorization redirect came from issuer "
              + iss
              + ", not "
              + md.issuer()
              + "; refusing the code",
          null);
    }
  }

  /** The client id to use: pre-registered, a metadata-document URL, or freshly registered. */
  private Client client(OAuthGrant.AuthorizationCode ac, OAuthDiscovery.Metadata md) {
    // Credentials are bound to the authorization server that issued them: after a move to
    // another one, a registered client registers again there.
    if (client != null && md.issuer().equals(clientIssuer)) {
      return client;
    }
    clientIssuer = md.issuer();
    client =
        switch (ac.client()) {
          case McpAuth.ClientRegistration.PreRegistered p -> new Client(p.clientId(), p.auth());
          case McpAuth.ClientRegistration.MetadataDocument m ->
              md.metadataDocumentClientIds()
                  ? new Client(m.clientIdUrl(), new McpAuth.ClientAuth.NoSecret())
                  : register(m.clientName(), ac.redirectUri(), md);
          case McpAuth.ClientRegistration.Dynamic d ->
              register(d.clientName(), ac.redirectUri(), md);
        };
    return client;
  }

  private Client register(String name, String redirectUri, OAuthDiscovery.Metadata md) {
    DynamicRegistration.Registered r =
        DynamicRegistration.register(server, name, redirectUri, md, http, limits);
    registeredSecret = r.secret();
    return new Client(r.clientId(), r.auth());
  }

  private Map<String, String> refreshForm() {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "refresh_token");
    form.put("refresh_token", refreshToken);
    return form;
  }

  private void tokenRequest(OAuthDiscovery.Metadata md, Map<String, String> form) {
    HttpRequest.Builder b = formRequest(md.tokenEndpoint());
    Client c = client;
    if (c == null) {
      throw failed("no client to authenticate at the token endpoint", null);
    }
    Map<String, String> body = new LinkedHashMap<>(form);
    switch (c.auth()) {
      case McpAuth.ClientAuth.SecretBasic sb -> {
        String pair = urlEncode(c.id()) + ":" + urlEncode(secret(sb.secret()));
        b.header(
            "Authorization",
            "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
      }
      case McpAuth.ClientAuth.SecretPost sp -> {
        body.put("client_id", c.id());
        body.put("client_secret", secret(sp.secret()));
      }
      case McpAuth.ClientAuth.NoSecret n -> body.put("client_id", c.id());
      case McpAuth.ClientAuth.PrivateKeyJwt j -> {
        body.put("client_id", c.id());
        body.put("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
        body.put(
            "client_assertion",
            ClientAssertion.es256(
                c.id(),
                md.issuer().toString(),
                credentials.secret(server, j.privateKeyPem()),
                clock.instant()));
      }
    }
    JsonNode answer = send(b, body, "token endpoint");
    String token = answer.path("access_token").asText("");
    if (token.isEmpty()) {
      throw failed("token endpoint answered without access_token", null);
    }
    accessToken = token;
    tokenIssuer = md.issuer();
    refreshToken =
        answer.hasNonNull("refresh_token")
            ? answer.get("refresh_token").asText()
            : form.get("grant_type").equals("refresh_token") ? refreshToken : null;
    LOG.info("mcp server {}: obtained an access token ({})", server, form.get("grant_type"));
  }

  private HttpRequest.Builder formRequest(URI endpoint) {
    return HttpRequest.newBuilder(endpoint)
        .timeout(limits.connectTimeout())
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Accept", "application/json");
  }

  private JsonNode send(HttpRequest.Builder b, Map<String, String> body, String who) {
    try {
      HttpResponse<String> r =
          http.send(
              b.POST(HttpRequest.BodyPublishers.ofString(form(body))).build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw failed(
            who
                + " answered HTTP "
                + r.statusCode()
                + " "
                + JSON.readTree(r.body().isBlank() ? "{}" : r.body()).path("error").asText(""),
            null);
      }
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw failed(who + " unreachable or unreadable: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failed("interrupted", e);
    }
  }

  private OAuthDiscovery.Metadata ensureMetadata(WwwAuthenticate challenge) {
    if (metadata == null || challenge.get("resource_metadata").isPresent()) {
      metadata = discovery.discover(challenge);
    }
    return metadata;
  }

  private String secret(McpAuth.SecretSource source) {
    if (source instanceof McpAuth.SecretSource.Provider p
        && p.id().startsWith("registered:")
        && !registeredSecret.isEmpty()) {
      return registeredSecret;
    }
    return credentials.secret(server, source);
  }

  private McpException failed(String why, Throwable cause) {
    return failed(server, why, cause);
  }

  static McpException failed(String server, String why, Throwable cause) {
    return new McpException(
        McpDiagnostic.AUTH_FAILED,
        server,
        "oauth: " + why,
        "check the OAuth client configuration",
        cause);
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
