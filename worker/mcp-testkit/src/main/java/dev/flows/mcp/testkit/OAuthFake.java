package dev.flows.mcp.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OAuth protected resource and authorization server on a {@link FaultServer}: 401 with {@code
 * resource_metadata} and a scope, protected-resource and authorization-server metadata, dynamic
 * registration, an authorize endpoint that approves at once, and a token endpoint that checks
 * client authentication and PKCE. {@code tools/call} needs {@code callScope}: without it, 403
 * insufficient_scope (step-up).
 */
public final class OAuthFake {
  private static final ObjectMapper JSON = new ObjectMapper();

  public final FaultServer server;
  public final List<Map<String, String>> tokenRequests = new CopyOnWriteArrayList<>();
  public final List<Map<String, String>> authorizeRequests = new CopyOnWriteArrayList<>();
  public final List<String> tokenAuthHeaders = new CopyOnWriteArrayList<>();
  private final Map<String, Set<String>> tokens = new ConcurrentHashMap<>();
  private final Map<String, String> challenges = new ConcurrentHashMap<>();
  private final AtomicInteger counter = new AtomicInteger();
  public volatile String resourceOverride;
  public volatile String baseScope = "mcp:read";
  public volatile String callScope = "mcp:read";

  public OAuthFake(FaultServer server) {
    this.server = server;
    String base = server.base().toString();
    server.gate = r -> gate(r, base);
    routeMetadata(base);
    routeAuthorizationServer(base);
  }

  /** 401 without a token this fake issued, 403 on a tool call without {@code callScope}. */
  private Optional<FaultServer.Answer> gate(FaultServer.Seen r, String base) {
    String auth = r.header("Authorization").orElse("");
    Set<String> granted = auth.startsWith("Bearer ") ? tokens.get(auth.substring(7)) : null;
    String prm = base + "/.well-known/oauth-protected-resource/mcp";
    if (granted == null) {
      return Optional.of(
          new FaultServer.Answer(
              401,
              Map.of(
                  "WWW-Authenticate",
                  "Bearer resource_metadata=\"" + prm + "\", scope=\"" + baseScope + "\""),
              ""));
    }
    if (r.body().contains("\"tools/call\"")
        && !granted.containsAll(List.of(callScope.split(" ")))) {
      return Optional.of(
          new FaultServer.Answer(
              403,
              Map.of(
                  "WWW-Authenticate",
                  "Bearer error=\"insufficient_scope\", scope=\""
                      + callScope
                      + "\", resource_metadata=\""
                      + prm
                      + "\""),
              ""));
    }
    return Optional.empty();
  }

  /** The protected-resource and authorization-server metadata. */
  private void routeMetadata(String base) {
    server.route(
        "/.well-known/oauth-protected-resource/mcp",
        r ->
            json(
                Map.of(
                    "resource",
                        resourceOverride == null ? server.url().toString() : resourceOverride,
                    "authorization_servers", List.of(base + "/as"),
                    "scopes_supported", List.of("mcp:read", "mcp:write"))));
    server.route(
        "/.well-known/oauth-authorization-server/as",
        r -> {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("issuer", base + "/as");
          m.put("authorization_endpoint", base + "/as/authorize");
          m.put("token_endpoint", base + "/as/token");
          m.put("registration_endpoint", base + "/as/register");
          m.put("code_challenge_methods_supported", List.of("S256"));
          m.put("token_endpoint_auth_methods_supported", List.of("client_secret_post"));
          return json(m);
        });
  }

  /** Dynamic registration, the authorize endpoint and the token endpoint. */
  private void routeAuthorizationServer(String base) {
    server.route(
        "/as/register",
        r ->
            json(
                201,
                Map.of(
                    "client_id",
                    "dyn-" + counter.incrementAndGet(),
                    "client_secret",
                    "dyn-secret",
                    "token_endpoint_auth_method",
                    "client_secret_post")));
    server.route(
        "/as/authorize",
        r -> {
          Map<String, String> q = form(URI.create(r.path()).getRawQuery());
          authorizeRequests.add(q);
          String code = "code-" + counter.incrementAndGet();
          challenges.put(
              code, q.getOrDefault("code_challenge", "") + " " + q.getOrDefault("scope", ""));
          String location = q.get("redirect_uri") + "?code=" + code + "&state=" + q.get("state");
          return new FaultServer.Answer(302, Map.of("Location", location), "");
        });
    server.route(
        "/as/token",
        r -> {
          Map<String, String> f = form(r.body());
          tokenRequests.add(f);
          tokenAuthHeaders.add(r.header("Authorization").orElse(""));
          String scope = f.getOrDefault("scope", "");
          if ("authorization_code".equals(f.get("grant_type"))) {
            String expected = challenges.remove(f.getOrDefault("code", ""));
            if (expected == null
                || !expected.startsWith(s256(f.getOrDefault("code_verifier", "")) + " ")) {
              return json(400, Map.of("error", "invalid_grant"));
            }
            scope = expected.substring(expected.indexOf(' ') + 1);
          }
          String token = "tok-" + counter.incrementAndGet();
          tokens.put(token, Set.of(scope.split(" ")));
          return json(Map.of("access_token", token, "token_type", "Bearer", "expires_in", 3600));
        });
  }

  private static String s256(String verifier) {
    try {
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(
              MessageDigest.getInstance("SHA-256")
                  .digest(verifier.getBytes(StandardCharsets.US_ASCII)));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Accepts a token issued elsewhere (for the provided-token tests). */
  public void accept(String token, String scopes) {
    tokens.put(token, Set.of(scopes.split(" ")));
  }

  static Map<String, String> form(String s) {
    Map<String, String> out = new LinkedHashMap<>();
    if (s == null || s.isEmpty()) {
      return out;
    }
    for (String pair : s.split("&")) {
      int eq = pair.indexOf('=');
      out.put(
          URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
          URLDecoder.decode(eq < 0 ? "" : pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return out;
  }

  private static FaultServer.Answer json(Object body) {
    return json(200, body);
  }

  private static FaultServer.Answer json(int status, Object body) {
    try {
      return new FaultServer.Answer(
          status, Map.of("Content-Type", "application/json"), JSON.writeValueAsString(body));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
