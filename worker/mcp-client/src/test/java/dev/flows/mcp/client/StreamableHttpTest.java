package dev.flows.mcp.client;

import static dev.flows.mcp.client.McpTestSupport.WAIT;
import static dev.flows.mcp.client.McpTestSupport.diagnosticOf;
import static dev.flows.mcp.client.McpTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flows.kernel.mcp.ConnectionState;
import dev.flows.kernel.mcp.ConnectionTransition;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.ToolDescriptor;
import dev.flows.kernel.mcp.ToolRegistry;
import dev.flows.mcp.testkit.FaultServer;
import dev.flows.mcp.testkit.JettyMcpServer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StreamableHttpTest {
  private static final McpClientConfig LIMITS =
      McpClientConfig.DEFAULTS
          .withStopGrace(Duration.ofSeconds(2))
          .withBackoff(Duration.ofMillis(500), Duration.ofSeconds(2), 2.0, 0.0, 8);

  private final ToolRegistry registry = new ToolRegistry();
  private final List<AutoCloseable> cleanup = new ArrayList<>();
  private final List<Long> attempts = new CopyOnWriteArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (AutoCloseable c : cleanup.reversed()) {
      c.close();
    }
  }

  private McpConnection connection(McpServerConfig.Http cfg, McpCredentials creds) {
    TransportFactory inner = McpTransports.factory(cfg, LIMITS, creds);
    McpConnection c =
        new McpConnection(
            cfg.name(),
            LIMITS,
            lost -> {
              attempts.add(System.nanoTime());
              return inner.create(lost);
            },
            registry,
            new SplittableRandom(3));
    cleanup.add(c);
    return c;
  }

  private static McpServerConfig.Http http(String name, URI url, McpAuth auth) {
    return new McpServerConfig.Http(name, url, Map.of("X-Flows-Test", "1"), auth);
  }

  private JettyMcpServer jetty(Optional<String[]> required) throws Exception {
    JettyMcpServer s = new JettyMcpServer(required).start();
    cleanup.add(s);
    return s;
  }

  private FaultServer fault() throws Exception {
    FaultServer s = new FaultServer();
    cleanup.add(s);
    return s;
  }

  @Test
  void anSdkServerOverHttpIsConnectedCalledAndItsSessionDeletedOnStop() throws Exception {
    JettyMcpServer server = jetty(Optional.empty());
    McpConnection c =
        connection(http("web", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());

    get(c.connect());

    assertThat(registry.find("web", "echo")).isPresent();
    assertThat(get(c.callTool("echo", Map.of("text", "over http"))).text()).isEqualTo("over http");
    c.stop();
    assertThat(registry.tools("web")).isEmpty();
    assertThat(server.requests())
        .anyMatch(r -> r.startsWith("DELETE ") && r.contains("mcp-session-id="));
    assertThat(server.requests())
        .filteredOn(r -> r.startsWith("POST "))
        .allMatch(r -> r.contains("x-flows-test=1"));
  }

  @Test
  void anApiTokenFromAProviderIsSentInTheConfiguredHeaderAndAWrongOneIsAuthFailed()
      throws Exception {
    JettyMcpServer server = jetty(Optional.of(new String[] {"X-Api-Key", "s3cret"}));
    McpAuth auth =
        new McpAuth.ApiToken(
            "X-Api-Key", Optional.empty(), new McpAuth.SecretSource.Provider("key"));
    McpCredentials good =
        new McpCredentials(n -> null, Map.of("key", () -> "s3cret"), Map.of(), Map.of());
    McpCredentials bad =
        new McpCredentials(n -> null, Map.of("key", () -> "wrong"), Map.of(), Map.of());

    McpConnection ok = connection(http("keyed", server.url(), auth), good);
    get(ok.connect());
    assertThat(get(ok.callTool("echo", Map.of("text", "in"))).text()).isEqualTo("in");

    McpConnection refused = connection(http("keyed2", server.url(), auth), bad);
    assertThat(diagnosticOf(refused.connect())).isEqualTo(McpDiagnostic.AUTH_FAILED);
  }

  @Test
  void anApiTokenFromAnUnsetVariableIsAuthFailedWithoutAnyRequestCarryingIt() throws Exception {
    JettyMcpServer server = jetty(Optional.empty());
    McpAuth auth =
        new McpAuth.ApiToken(
            "Authorization",
            Optional.of("Bearer"),
            new McpAuth.SecretSource.EnvVar("FLOWS_UNSET_TOKEN"));
    McpConnection c =
        connection(
            http("envtoken", server.url(), auth),
            new McpCredentials(n -> null, Map.of(), Map.of(), Map.of()));

    assertThat(diagnosticOf(c.connect())).isEqualTo(McpDiagnostic.AUTH_FAILED);
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void aRestartedServerExpiresTheSessionAndTheRejectedCallIsRetriedOnceAfterReinitializing()
      throws Exception {
    JettyMcpServer server = jetty(Optional.empty());
    McpConnection c =
        connection(
            http("restart", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());
    get(c.connect());
    server.stop();
    server.start(server.port());

    assertThat(get(c.callTool("echo", Map.of("text", "after restart"))).text())
        .isEqualTo("after restart");
    assertThat(c.state()).isEqualTo(ConnectionState.CONNECTED);
  }

  @Test
  void aServerThatGoesAwayIsReconnectedWithGrowingBackoffAndItsToolsAreNotDuplicated()
      throws Exception {
    JettyMcpServer server = jetty(Optional.empty());
    McpConnection c =
        connection(
            http("flaky", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());
    List<ConnectionTransition> seen = new CopyOnWriteArrayList<>();
    c.addStateListener((t, cause) -> seen.add(t));
    get(c.connect());
    List<ToolDescriptor> before = registry.all();
    int port = server.port();
    server.stop();

    // Whether the server went away before or while taking the call is a race the client cannot
    // see; both answers say the outcome is not known to have happened.
    assertThat(diagnosticOf(c.callTool("echo", Map.of("text", "x"))))
        .isIn(McpDiagnostic.MCP_DISCONNECTED, McpDiagnostic.MCP_RESULT_UNAVAILABLE);
    await().atMost(WAIT).until(() -> c.state() == ConnectionState.RECONNECTING);
    assertThat(registry.tools("flaky")).isEmpty();
    await().atMost(WAIT).until(() -> attempts.size() >= 5);
    server.start(port);
    await().atMost(WAIT).until(() -> c.state() == ConnectionState.CONNECTED);

    assertThat(registry.all()).containsExactlyInAnyOrderElementsOf(before);
    assertThat(seen)
        .containsSubsequence(ConnectionTransition.LOST, ConnectionTransition.RECONNECTED);
    // attempts[0] is the first connect; reconnect attempts 2, 3 and 4 wait 1 s, then the 2 s cap
    // (initial 500 ms, factor 2, jitter 0). Upper bounds only catch a runaway, not load.
    long[] gaps = new long[3];
    for (int i = 0; i < 3; i++) {
      gaps[i] = Duration.ofNanos(attempts.get(i + 2) - attempts.get(i + 1)).toMillis();
    }
    assertThat(gaps[0]).isBetween(900L, 11_000L);
    assertThat(gaps[1]).isBetween(1800L, 12_000L);
    assertThat(gaps[2]).isBetween(1800L, 12_000L);
    assertThat(get(c.callTool("echo", Map.of("text", "again"))).text()).isEqualTo("again");
  }

  @Test
  void aDroppedAnswerStreamIsResumedWithLastEventIdAfterTheServersRetryDelay() throws Exception {
    FaultServer server = fault();
    server.callMode = FaultServer.CallMode.DROP_THEN_REPLAY;
    server.retryMs = 700;
    McpConnection c =
        connection(
            http("drop", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());
    get(c.connect());
    List<ToolDescriptor> before = registry.all();

    assertThat(get(c.callTool("echo", Map.of())).text()).isEqualTo("called echo");

    List<FaultServer.Seen> reqs = server.requests();
    FaultServer.Seen call =
        reqs.stream().filter(r -> r.body().contains("tools/call")).findFirst().orElseThrow();
    FaultServer.Seen resume =
        reqs.stream()
            .filter(r -> r.method().equals("GET") && r.header("Last-Event-ID").isPresent())
            .findFirst()
            .orElseThrow();
    assertThat(resume.header("Mcp-Session-Id")).isPresent();
    assertThat(Duration.ofNanos(resume.nanos() - call.nanos()).toMillis())
        .isGreaterThanOrEqualTo(650);
    assertThat(registry.all()).isEqualTo(before);
    assertThat(c.state()).isEqualTo(ConnectionState.CONNECTED);
  }

  @Test
  void aDroppedAnswerThatCannotBeResumedIsResultUnavailable() throws Exception {
    FaultServer server = fault();
    server.callMode = FaultServer.CallMode.DROP_NO_RESUME;
    server.retryMs = 100;
    McpConnection c =
        connection(
            http("lost", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());
    get(c.connect());

    assertThat(diagnosticOf(c.callTool("echo", Map.of())))
        .isEqualTo(McpDiagnostic.MCP_RESULT_UNAVAILABLE);
  }

  @Test
  void anExpiredSessionIsReinitializedAndTheRejectedRequestIsSentExactlyOnceMore()
      throws Exception {
    FaultServer server = fault();
    McpConnection c =
        connection(
            http("expiry", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());
    get(c.connect());
    server.expireSessions();

    assertThat(get(c.callTool("echo", Map.of())).text()).isEqualTo("called echo");

    List<FaultServer.Seen> calls =
        server.requests().stream().filter(r -> r.body().contains("tools/call")).toList();
    assertThat(calls).hasSize(2);
    assertThat(calls.get(0).header("Mcp-Session-Id"))
        .isNotEqualTo(calls.get(1).header("Mcp-Session-Id"));
    assertThat(server.requests().stream().filter(r -> r.body().contains("\"initialize\"")).count())
        .isEqualTo(2);
  }

  @Test
  void aRedirectIsRefusedAndNotFollowed() throws Exception {
    FaultServer server = fault();
    FaultServer elsewhere = fault();
    server.redirectTo = Optional.of(elsewhere.url().toString());
    McpConnection c =
        connection(
            http("moved", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());

    assertThat(diagnosticOf(c.connect())).isEqualTo(McpDiagnostic.HANDSHAKE_REJECTED);
    assertThat(elsewhere.requests()).isEmpty();
  }

  @Test
  void toolPagesAreMergedAndARepeatedCursorIsAProtocolError() throws Exception {
    FaultServer server = fault();
    server.listMode = FaultServer.ListMode.TWO_PAGES;
    McpConnection paged =
        connection(
            http("paged", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());
    get(paged.connect());
    assertThat(registry.tools("paged"))
        .extracting(ToolDescriptor::name)
        .containsExactly("echo", "noop-p2");

    server.listMode = FaultServer.ListMode.REPEATED_CURSOR;
    McpConnection looping =
        connection(
            http("looping", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());
    assertThat(McpTestSupport.failureOf(looping.connect()))
        .satisfies(e -> assertThat(e.diagnostic()).isEqualTo(McpDiagnostic.HANDSHAKE_REJECTED))
        .hasMessageContaining("cursor again twice");
    assertThat(registry.tools("looping")).isEmpty();
  }

  @Test
  void aPoolChoosesTheTransportPerServerAndAddressesToolsAsServerSlashTool() throws Exception {
    JettyMcpServer server = jetty(Optional.empty());
    McpPool pool =
        new McpPool(
            List.of(
                dev.flows.mcp.testkit.Jvm.stdioServer("near", List.of(), Map.of()),
                http("far", server.url(), new McpAuth.None())),
            LIMITS,
            McpCredentials.fromEnvironment(),
            registry);
    cleanup.add(pool);

    get(pool.connectAll());

    assertThat(get(pool.call("near/echo", Map.of("text", "stdio"))).text()).isEqualTo("stdio");
    assertThat(get(pool.call("far/echo", Map.of("text", "http"))).text()).isEqualTo("http");
    assertThat(registry.all())
        .extracting(ToolDescriptor::qualifiedName)
        .contains("near/echo", "far/echo");
    assertThat(diagnosticOf(pool.call("nowhere/echo", Map.of())))
        .isEqualTo(McpDiagnostic.MCP_UNKNOWN_TOOL);
    assertThat(server.requests()).noneMatch(r -> r.contains("authorization="));
  }

  @Test
  void stoppingWhileReconnectingClosesAndLeavesNoReconnectThread() throws Exception {
    JettyMcpServer server = jetty(Optional.empty());
    McpConnection c =
        connection(
            http("gone", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());
    get(c.connect());
    server.stop();
    diagnosticOf(c.callTool("echo", Map.of("text", "x")));
    await().atMost(WAIT).until(() -> c.state() == ConnectionState.RECONNECTING);

    c.stop();

    assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
    await()
        .atMost(WAIT)
        .until(
            () ->
                Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().equals("mcp-reconnect-gone") && t.isAlive()));
    int attemptsAtStop = attempts.size();
    Thread.sleep(LIMITS.backoffMax().toMillis() + 500);
    assertThat(attempts).hasSize(attemptsAtStop);
  }

  @Test
  void aToolCallCutOffBeforeAnyAnswerIsNeverSentASecondTime() throws Exception {
    FaultServer server = fault();
    McpConnection c =
        connection(
            http("stale", server.url(), new McpAuth.None()), McpCredentials.fromEnvironment());
    get(c.connect());
    server.hangUpNextCall = true;

    // The outcome is unknown to the client: the journal's election decides, never a silent resend.
    assertThat(McpTestSupport.diagnosticOf(c.callTool("echo", Map.of())))
        .isIn(McpDiagnostic.MCP_DISCONNECTED, McpDiagnostic.MCP_RESULT_UNAVAILABLE);
    assertThat(server.requests().stream().filter(r -> r.body().contains("tools/call")).count())
        .isEqualTo(1);
    c.stop();
  }
}
