package dev.flows.mcp.client;

import static dev.flows.mcp.client.McpTestSupport.diagnosticOf;
import static dev.flows.mcp.client.McpTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpAuth.ClientAuth;
import dev.flows.kernel.mcp.McpAuth.OAuthGrant;
import dev.flows.kernel.mcp.McpAuth.SecretSource;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.ToolRegistry;
import dev.flows.mcp.testkit.FaultServer;
import dev.flows.mcp.testkit.OAuthFake;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OAuthTest {
  private static final McpClientConfig LIMITS =
      McpClientConfig.DEFAULTS.withStopGrace(Duration.ofSeconds(2));
  private final ToolRegistry registry = new ToolRegistry();
  private final List<McpConnection> connections = new ArrayList<>();
  private FaultServer server;
  private OAuthFake oauth;

  @BeforeEach
  void start() throws Exception {
    server = new FaultServer();
    oauth = new OAuthFake(server);
  }

  @AfterEach
  void stop() {
    connections.forEach(McpConnection::stop);
    server.close();
  }

  private McpConnection connect(OAuthGrant grant, McpCredentials creds) {
    McpServerConfig.Http cfg =
        new McpServerConfig.Http(
            "secured", server.url(), Map.of(), new McpAuth.OAuth(grant, List.of()));
    McpConnection c =
        new McpConnection(
            "secured",
            LIMITS,
            McpTransports.factory(cfg, LIMITS, creds),
            registry,
            new SplittableRandom(1));
    connections.add(c);
    return c;
  }

  private static McpCredentials creds(
      Map<String, String> secrets, Map<String, OAuthTokenProvider> providers) {
    Map<String, java.util.function.Supplier<String>> s = new java.util.HashMap<>();
    secrets.forEach((k, v) -> s.put(k, () -> v));
    return new McpCredentials(
        n -> null,
        s,
        providers,
        Map.of("headless", new HeadlessRedirectCompleter(Duration.ofSeconds(30))));
  }

  private List<String> bearers() {
    return server.requests().stream()
        .filter(r -> r.path().startsWith("/mcp"))
        .map(r -> r.header("Authorization").orElse(""))
        .toList();
  }

  @Test
  void anInjectedTokenIsSentAndRefreshedOnceWhenRefused() throws Exception {
    oauth.accept("fresh", "mcp:read");
    AtomicInteger refreshes = new AtomicInteger();
    OAuthTokenProvider provider =
        new OAuthTokenProvider() {
          @Override
          public String token() {
            return "stale";
          }

          @Override
          public String refresh(String rejected) {
            refreshes.incrementAndGet();
            return "fresh";
          }
        };
    McpConnection c =
        connect(new OAuthGrant.ProvidedToken("vault"), creds(Map.of(), Map.of("vault", provider)));

    get(c.connect());

    assertThat(get(c.callTool("echo", Map.of())).text()).isEqualTo("called echo");
    assertThat(refreshes).hasValue(1);
    assertThat(bearers().getFirst()).isEqualTo("Bearer stale");
    assertThat(bearers().subList(1, bearers().size())).containsOnly("Bearer fresh");
  }

  @Test
  void aProviderThatCannotRefreshBreaksTheLoopWithAuthFailed() {
    OAuthTokenProvider stuck =
        new OAuthTokenProvider() {
          @Override
          public String token() {
            return "stale";
          }

          @Override
          public String refresh(String rejected) {
            return "stale";
          }
        };
    McpConnection c =
        connect(new OAuthGrant.ProvidedToken("vault"), creds(Map.of(), Map.of("vault", stuck)));

    assertThat(diagnosticOf(c.connect())).isEqualTo(McpDiagnostic.AUTH_FAILED);
    assertThat(bearers()).hasSizeLessThanOrEqualTo(2);
  }

  @Test
  void clientCredentialsWithBasicAuthDiscoverTheServersAndUseTheChallengedScope() throws Exception {
    McpConnection c =
        connect(
            new OAuthGrant.ClientCredentials(
                "machine", new ClientAuth.SecretBasic(new SecretSource.Provider("cs"))),
            creds(Map.of("cs", "p@ss word"), Map.of()));

    get(c.connect());

    assertThat(oauth.tokenRequests).hasSize(1);
    Map<String, String> form = oauth.tokenRequests.getFirst();
    assertThat(form)
        .containsEntry("grant_type", "client_credentials")
        .containsEntry("scope", "mcp:read")
        .containsEntry("resource", server.url().toString())
        .doesNotContainKey("client_secret");
    String basic = oauth.tokenAuthHeaders.getFirst();
    assertThat(new String(Base64.getDecoder().decode(basic.substring(6)), StandardCharsets.UTF_8))
        .isEqualTo("machine:p%40ss+word");
    assertThat(bearers().getLast()).startsWith("Bearer tok-");
  }

  @Test
  void clientCredentialsWithPostAuthSendTheSecretInTheBody() throws Exception {
    McpConnection c =
        connect(
            new OAuthGrant.ClientCredentials(
                "machine", new ClientAuth.SecretPost(new SecretSource.Provider("cs"))),
            creds(Map.of("cs", "s3"), Map.of()));

    get(c.connect());

    assertThat(oauth.tokenRequests.getFirst())
        .containsEntry("client_id", "machine")
        .containsEntry("client_secret", "s3");
    assertThat(oauth.tokenAuthHeaders.getFirst()).isEmpty();
  }

  @Test
  void authorizationCodeWithPkceRegistersDynamicallyAndStepsUpOnInsufficientScope()
      throws Exception {
    oauth.callScope = "mcp:read mcp:write";
    McpConnection c =
        connect(
            new OAuthGrant.AuthorizationCode(
                new McpAuth.ClientRegistration.Dynamic("flows-test"),
                "http://127.0.0.1:1/callback",
                "headless"),
            creds(Map.of(), Map.of()));

    get(c.connect());
    assertThat(get(c.callTool("echo", Map.of())).text()).isEqualTo("called echo");

    assertThat(oauth.authorizeRequests).hasSize(2);
    assertThat(oauth.authorizeRequests.get(0))
        .containsEntry("code_challenge_method", "S256")
        .containsEntry("scope", "mcp:read")
        .containsEntry("client_id", "dyn-1")
        .containsEntry("resource", server.url().toString());
    assertThat(oauth.authorizeRequests.get(1).get("scope").split(" "))
        .containsExactlyInAnyOrder("mcp:read", "mcp:write");
    assertThat(oauth.tokenRequests)
        .allSatisfy(
            f ->
                assertThat(f)
                    .containsEntry("grant_type", "authorization_code")
                    .containsKey("code_verifier"));
    assertThat(oauth.tokenRequests.getFirst()).containsEntry("client_secret", "dyn-secret");
  }

  @Test
  void protectedResourceMetadataNamingAnotherServerIsRefusedBeforeAuthorizing() {
    oauth.resourceOverride = "https://evil.example.com/mcp";
    McpConnection c =
        connect(
            new OAuthGrant.AuthorizationCode(
                new McpAuth.ClientRegistration.Dynamic("flows-test"),
                "http://127.0.0.1:1/callback",
                "headless"),
            creds(Map.of(), Map.of()));

    assertThat(diagnosticOf(c.connect())).isEqualTo(McpDiagnostic.AUTH_FAILED);
    assertThat(oauth.authorizeRequests).isEmpty();
    assertThat(oauth.tokenRequests).isEmpty();
  }
}
