package dev.flows.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.mcp.testkit.HostileServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Servers that answer too much, too slowly or wrongly, through the real client: each call ends with
 * a diagnostic within its deadline, the connection stays usable, and the client's heap stays
 * bounded. This module's tests run with a small heap (its pom's {@code surefire.argLine}), so
 * reading a 200 MB answer whole would fail it with an OutOfMemoryError.
 */
class HostileServerTest {
  /** The heap this suite runs in; see the surefire execution in this module's pom. */
  static final long HEAP_BOUND_BYTES = 192L << 20;

  private static final McpClientConfig LIMITS =
      McpClientConfig.DEFAULTS
          .withStopGrace(Duration.ofSeconds(1))
          .withCallTimeout(Duration.ofSeconds(20));
  private static final Duration QUICK = Duration.ofSeconds(15);

  private final List<McpConnection> connections = new ArrayList<>();
  private final List<AutoCloseable> servers = new ArrayList<>();

  @BeforeAll
  static void runsWithASmallHeap() {
    assertThat(Runtime.getRuntime().maxMemory())
        .as("run with -Xmx at most the bound (this module's surefire.argLine)")
        .isLessThanOrEqualTo(HEAP_BOUND_BYTES);
  }

  @AfterEach
  void stopAll() throws Exception {
    connections.forEach(McpConnection::stop);
    for (AutoCloseable s : servers) {
      s.close();
    }
  }

  private McpConnection connected(McpServerConfig server, McpClientConfig limits) throws Exception {
    McpConnection c = McpTestSupport.connection(server, limits);
    connections.add(c);
    McpTestSupport.get(c.connect());
    return c;
  }

  /** A stdio server spoken to in {@code revision}: the 2025 handshake, or 2026-07-28 only. */
  private McpConnection stdioIn(McpProtocol revision, String... flags) throws Exception {
    return connected(hostile(revision, "hostile", flags), LIMITS);
  }

  private static McpServerConfig.Stdio hostile(McpProtocol revision, String name, String... flags) {
    List<String> all = new ArrayList<>(List.of(flags));
    if (revision == McpProtocol.V2026_07_28) {
      all.add("--modern");
    }
    return HostileServer.stdio(name, all.toArray(String[]::new)).withProtocol(revision);
  }

  private McpConnection http() throws Exception {
    return http(McpProtocol.V2025_11_25);
  }

  private McpConnection http(McpProtocol revision) throws Exception {
    HostileServer.Http h = HostileServer.http(0, revision == McpProtocol.V2026_07_28);
    servers.add(h);
    return connected(
        new McpServerConfig.Http("hostile", h.url(), Map.of(), new McpAuth.None(), revision),
        LIMITS);
  }

  private static CompletableFuture<ToolCallResult> call(McpConnection c, String tool) {
    return c.callTool(tool, Map.of(), Map.of());
  }

  /** The diagnostic the call ends with, asserting it ends within {@code deadline}. */
  private static McpDiagnostic failsWithin(Duration deadline, CompletableFuture<?> call) {
    long start = System.nanoTime();
    McpDiagnostic d = McpTestSupport.diagnosticOf(call);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(deadline);
    return d;
  }

  private static void stillAnswers(McpConnection c) throws Exception {
    assertThat(McpTestSupport.get(call(c, "echo")).content().toString()).contains("pong");
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void aTwoHundredMegabyteResultOverStdioIsCutOffAsPayloadTooLarge(McpProtocol revision)
      throws Exception {
    McpConnection c = stdioIn(revision);
    assertThat(failsWithin(QUICK, call(c, "huge"))).isEqualTo(McpDiagnostic.PAYLOAD_TOO_LARGE);
    stillAnswers(c);
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void aTwoHundredMegabyteJsonResultOverHttpIsCutOffAsPayloadTooLarge(McpProtocol revision)
      throws Exception {
    McpConnection c = http(revision);
    assertThat(failsWithin(QUICK, call(c, "huge"))).isEqualTo(McpDiagnostic.PAYLOAD_TOO_LARGE);
    stillAnswers(c);
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void aTwoHundredMegabyteSseEventOverHttpIsCutOffAsPayloadTooLarge(McpProtocol revision)
      throws Exception {
    McpConnection c = http(revision);
    assertThat(failsWithin(QUICK, call(c, "sse-huge"))).isEqualTo(McpDiagnostic.PAYLOAD_TOO_LARGE);
    stillAnswers(c);
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void eightMegabytesOfResponseHeadersAreRefusedByTheHttpClient(McpProtocol revision)
      throws Exception {
    McpConnection c = http(revision);
    // 2025: the session's connection is lost; 2026-07-28 has no session, only the call fails.
    assertThat(failsWithin(QUICK, call(c, "headers")))
        .isEqualTo(
            revision == McpProtocol.V2026_07_28
                ? McpDiagnostic.MCP_RESULT_UNAVAILABLE
                : McpDiagnostic.MCP_DISCONNECTED);
    if (revision == McpProtocol.V2026_07_28) {
      stillAnswers(c);
    }
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void aServersLimitCutsOffAnAnswerTheDefaultLimitTakes(McpProtocol revision) throws Exception {
    McpServerConfig.Stdio server = hostile(revision, "hostile", "--tools=200");
    assertThat(connected(server, LIMITS).tools()).hasSizeGreaterThan(200);
    McpConnection small =
        McpTestSupport.connection(
            server, LIMITS.withMaxResultBytes(McpClientConfig.MIN_RESULT_BYTES));
    connections.add(small);
    assertThat(failsWithin(QUICK, small.connect())).isEqualTo(McpDiagnostic.PAYLOAD_TOO_LARGE);
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void anAnswerThatIsNotJsonFailsTheCallAtOnceAsResultUnavailable(McpProtocol revision)
      throws Exception {
    McpConnection c = stdioIn(revision);
    assertThat(failsWithin(QUICK, call(c, "invalid")))
        .isEqualTo(McpDiagnostic.MCP_RESULT_UNAVAILABLE);
    stillAnswers(c);
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void jsonNestedAHundredThousandLevelsFailsTheCallWithoutAStackOverflow(McpProtocol revision)
      throws Exception {
    McpConnection c = stdioIn(revision);
    assertThat(failsWithin(QUICK, call(c, "nested")))
        .isEqualTo(McpDiagnostic.MCP_RESULT_UNAVAILABLE);
    stillAnswers(c);
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void anAnswerToARequestNeverSentIsIgnoredAndTheRealAnswerArrives(McpProtocol revision)
      throws Exception {
    McpConnection c = stdioIn(revision);
    assertThat(McpTestSupport.get(call(c, "unsolicited")).content().toString()).contains("after");
  }

  @Test
  void aTwoHundredMegabyteAnswerToTheProtocolProbeIsCutOffAndThe2025HandshakeGoesOn()
      throws Exception {
    McpConnection c = connected(HostileServer.stdio("probe", "--huge-discover"), LIMITS);
    stillAnswers(c);
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void garbageOnStdoutBeforeTheHandshakeIsSkipped(McpProtocol revision) throws Exception {
    stillAnswers(stdioIn(revision, "--garbage"));
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void aHundredThousandToolsInToolsListEndTheConnectWithPayloadTooLarge(McpProtocol revision)
      throws Exception {
    McpConnection c =
        McpTestSupport.connection(hostile(revision, "many", "--tools=100000"), LIMITS);
    connections.add(c);
    long start = System.nanoTime();
    McpDiagnostic d = McpTestSupport.diagnosticOf(c.connect());
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(QUICK);
    assertThat(d).isEqualTo(McpDiagnostic.PAYLOAD_TOO_LARGE);
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void aOneBytePerSecondDripEndsAtTheCallTimeout(McpProtocol revision) throws Exception {
    McpClientConfig limits = LIMITS.withCallTimeout(Duration.ofSeconds(2));
    McpConnection c = connected(hostile(revision, "drip"), limits);
    assertThat(failsWithin(Duration.ofSeconds(10), call(c, "drip")))
        .isEqualTo(McpDiagnostic.MCP_RESULT_UNAVAILABLE);
  }

  @ParameterizedTest
  @EnumSource(names = {"V2025_11_25", "V2026_07_28"})
  void anSseStreamThatNeverEndsEndsTheCallAtItsTimeout(McpProtocol revision) throws Exception {
    HostileServer.Http h = HostileServer.http(0, revision == McpProtocol.V2026_07_28);
    servers.add(h);
    McpConnection c =
        connected(
            new McpServerConfig.Http("endless", h.url(), Map.of(), new McpAuth.None(), revision),
            LIMITS.withCallTimeout(Duration.ofSeconds(2)));
    assertThat(failsWithin(Duration.ofSeconds(10), call(c, "sse-endless")))
        .isEqualTo(McpDiagnostic.MCP_RESULT_UNAVAILABLE);
    stillAnswers(c);
  }

  /**
   * A JSON body, or an SSE stream, that never ends is closed when its call is given up at its
   * timeout: the thread reading it is let go, and the server sees its connection closed.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "V2025_11_25, endless",
    "V2025_11_25, sse-endless",
    "V2026_07_28, endless",
    "V2026_07_28, sse-endless"
  })
  void anAnswerThatNeverEndsIsClosedAtTheCallTimeoutSoNothingKeepsReadingIt(
      McpProtocol revision, String tool) throws Exception {
    HostileServer.Http h = HostileServer.http(0, revision == McpProtocol.V2026_07_28);
    servers.add(h);
    McpConnection c =
        connected(
            new McpServerConfig.Http("forever", h.url(), Map.of(), new McpAuth.None(), revision),
            LIMITS.withCallTimeout(Duration.ofSeconds(2)));
    assertThat(failsWithin(Duration.ofSeconds(10), call(c, tool)))
        .isEqualTo(McpDiagnostic.MCP_RESULT_UNAVAILABLE);

    long start = System.nanoTime();
    while (h.answering().get() > 0 && System.nanoTime() - start < QUICK.toNanos()) {
      Thread.sleep(50);
    }
    assertThat(h.answering().get())
        .as(
            "answers still written %s after the call ended",
            Duration.ofNanos(System.nanoTime() - start))
        .isZero();
    stillAnswers(c);
  }
}
