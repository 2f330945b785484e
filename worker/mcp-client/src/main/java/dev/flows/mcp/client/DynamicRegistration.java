package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Dynamic client registration (RFC 7591) at an authorization server. */
final class DynamicRegistration {
  private static final Logger LOG = LoggerFactory.getLogger(DynamicRegistration.class);
  private static final ObjectMapper JSON = Jackson.mapper();

  private DynamicRegistration() {}

  /** The registered client: its id, its secret ("" for none) and how it authenticates. */
  record Registered(String clientId, String secret, McpAuth.ClientAuth auth) {}

  /** RFC 7591 registration; the method asked for is the first the server supports. */
  static Registered register(
      String server,
      String name,
      String redirectUri,
      OAuthDiscovery.Metadata md,
      HttpClient http,
      McpClientConfig limits) {
    URI endpoint =
        md.registrationEndpoint()
            .orElseThrow(
                () ->
                    OAuthAuthenticator.failed(
                        server,
                        "the authorization server offers no dynamic registration;"
                            + " configure a pre-registered client",
                        null));
    String method =
        List.of("client_secret_basic", "client_secret_post", "none").stream()
            .filter(
                m -> md.authMethodsSupported().isEmpty() || md.authMethodsSupported().contains(m))
            .findFirst()
            .orElse("client_secret_basic");
    JsonNode answer = post(server, endpoint, request(name, redirectUri, method), http, limits);
    String id = answer.path("client_id").asText("");
    if (id.isEmpty()) {
      throw OAuthAuthenticator.failed(
          server, "client registration answered without client_id", null);
    }
    String secret = answer.path("client_secret").asText("");
    String granted = answer.path("token_endpoint_auth_method").asText(method);
    McpAuth.SecretSource s = new McpAuth.SecretSource.Provider("registered:" + id);
    McpAuth.ClientAuth auth =
        secret.isEmpty() || granted.equals("none")
            ? new McpAuth.ClientAuth.NoSecret()
            : granted.equals("client_secret_post")
                ? new McpAuth.ClientAuth.SecretPost(s)
                : new McpAuth.ClientAuth.SecretBasic(s);
    LOG.info("mcp server {}: registered OAuth client {} ({})", server, id, granted);
    return new Registered(id, secret, auth);
  }

  /** The registration request: a client of {@code name} redirected to {@code redirectUri}. */
  private static JsonNode request(String name, String redirectUri, String method) {
    var req = JSON.createObjectNode();
    req.put("client_name", name);
    req.putArray("redirect_uris").add(redirectUri);
    req.putArray("grant_types").add("authorization_code").add("refresh_token");
    req.putArray("response_types").add("code");
    req.put("token_endpoint_auth_method", method);
    // OpenID registration rules: a redirect to this machine is a native client's, else a web one.
    String host = URI.create(redirectUri).getHost();
    req.put(
        "application_type",
        host == null || host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]")
            ? "native"
            : "web");
    return req;
  }

  /** Posts the registration and answers the server's JSON, refusing any status but 200 or 201. */
  private static JsonNode post(
      String server, URI endpoint, JsonNode req, HttpClient http, McpClientConfig limits) {
    JsonNode answer;
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(endpoint)
                  .timeout(limits.connectTimeout())
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(req)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200 && r.statusCode() != 201) {
        throw OAuthAuthenticator.failed(
            server, "client registration answered HTTP " + r.statusCode(), null);
      }
      answer = JSON.readTree(r.body());
    } catch (IOException e) {
      throw OAuthAuthenticator.failed(server, "client registration failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw OAuthAuthenticator.failed(server, "interrupted", e);
    }
    return answer;
  }
}
