package dev.flows.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.flows.kernel.mcp.ConnectionState;
import dev.flows.kernel.mcp.ConnectionTransition;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolDescriptor;
import dev.flows.kernel.mcp.ToolRegistry;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.NoProcessLeftBehind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@ExtendWith(NoProcessLeftBehind.class)
class StdioConnectionTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Room past the reaping's own waits for a loaded machine. */
  private static final Duration REAP_MARGIN = Duration.ofSeconds(10);

  private static final McpClientConfig LIMITS =
      McpClientConfig.DEFAULTS
          .withStopGrace(Duration.ofSeconds(2))
          .withBackoff(Duration.ofMillis(200), Duration.ofSeconds(1), 1.5, 0.2, 5);

  private final ToolRegistry registry = new ToolRegistry();
  private final List<StdioTransport> spawned = new CopyOnWriteArrayList<>();
  private final List<McpConnection> connections = new ArrayList<>();

  @AfterEach
  void stopAll() {
    connections.forEach(McpConnection::stop);
  }

  private McpConnection connection(McpServerConfig.Stdio cfg, McpClientConfig limits) {
    return connection(cfg.name(), limits, spawning(cfg, limits));
  }

  private McpConnection connection(
      String name, McpClientConfig limits, TransportFactory transports) {
    McpConnection c =
        new McpConnection(name, limits, transports, registry, new SplittableRandom(7));
    connections.add(c);
    return c;
  }

  /** Real stdio transports, each kept in {@code spawned}. */
  private TransportFactory spawning(McpServerConfig.Stdio cfg, McpClientConfig limits) {
    return lost -> {
      StdioTransport t = new StdioTransport(cfg, limits, Json.MAPPER, lost);
      spawned.add(t);
      return t;
    };
  }

  private static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private static McpDiagnostic diagnosticOf(CompletableFuture<?> f) {
    try {
      f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(McpException.class);
      return ((McpException) e.getCause()).diagnostic();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("expected a failure");
  }

  private long pidOf(McpConnection c) throws Exception {
    return Long.parseLong(get(c.callTool("pid", Map.of())).text());
  }

  @Test
  void connectingRegistersTheToolsWithSchemaAndHintsAndStopRemovesThem() throws Exception {
    McpConnection c = connection(Jvm.stdioServer("local", List.of(), Map.of()), LIMITS);
    List<ConnectionTransition> seen = new CopyOnWriteArrayList<>();
    c.addStateListener((t, cause) -> seen.add(t));

    get(c.connect());

    assertThat(c.state()).isEqualTo(ConnectionState.CONNECTED);
    ToolDescriptor echo = registry.find("local", "echo").orElseThrow();
    assertThat(echo.inputSchema().path("required").get(0).asText()).isEqualTo("text");
    assertThat(echo.hints().readOnly()).contains(true);
    assertThat(echo.hints().destructive()).contains(false);
    ToolCallResult r = get(c.callTool("echo", Map.of("text", "hello")));
    assertThat(r.text()).isEqualTo("hello");
    assertThat(r.isError()).isFalse();
    assertThat(get(c.callTool("add", Map.of("a", 2, "b", 40))).text()).isEqualTo("42");

    c.stop();

    assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
    assertThat(registry.tools("local")).isEmpty();
    assertThat(seen)
        .containsExactly(
            ConnectionTransition.CONNECT,
            ConnectionTransition.CONNECTED_OK,
            ConnectionTransition.STOPPED_CONNECTED);
    assertThat(spawned.getFirst().pid().flatMap(ProcessHandle::of).map(ProcessHandle::isAlive))
        .isIn(Optional.empty(), Optional.of(false));
  }

  @Test
  void theChildSeesOnlyAllowlistedNamesPresentInTheParentAndExplicitValues() throws Exception {
    String present = System.getenv().containsKey("HOME") ? "HOME" : "PATH";
    McpConnection c =
        connection(
            Jvm.stdioServer(
                "envy",
                List.of(present, "FLOWS_SURELY_UNSET_VARIABLE"),
                Map.of("FLOWS_EXPLICIT", "yes")),
            LIMITS);
    get(c.connect());

    String names = get(c.callTool("env", Map.of())).text();

    assertThat(Arrays.asList(names.split(",")))
        .containsExactlyInAnyOrder(present, "FLOWS_EXPLICIT");
  }

  @Test
  void aServerThatClosesItsStderrKeepsWorking() throws Exception {
    McpConnection c =
        connection(Jvm.stdioServer("quiet", List.of(), Map.of(), "--close-stderr"), LIMITS);
    get(c.connect());
    assertThat(get(c.callTool("echo", Map.of("text", "still here"))).text())
        .isEqualTo("still here");
  }

  @Test
  void aToolReportedErrorIsAResultAndAnUnknownToolIsRefusedBeforeSending() throws Exception {
    McpConnection c = connection(Jvm.stdioServer("errs", List.of(), Map.of()), LIMITS);
    get(c.connect());

    ToolCallResult r = get(c.callTool("fail", Map.of()));
    assertThat(r.isError()).isTrue();
    assertThat(r.diagnostic()).contains(McpDiagnostic.MCP_TOOL_ERROR);
    assertThat(diagnosticOf(c.callTool("no_such_tool", Map.of())))
        .isEqualTo(McpDiagnostic.MCP_UNKNOWN_TOOL);
  }

  @Test
  void aCallWithoutAnswerInTimeHasAnUnknownOutcome() throws Exception {
    McpConnection c =
        connection(
            Jvm.stdioServer("slow", List.of(), Map.of()),
            LIMITS.withCallTimeout(Duration.ofSeconds(6)));
    get(c.connect());
    assertThat(diagnosticOf(c.callTool("sleep", Map.of("ms", 30_000))))
        .isEqualTo(McpDiagnostic.MCP_RESULT_UNAVAILABLE);
  }

  @Test
  void aPendingCallFailsAsSoonAsTheServerExitsAndTheServerIsRespawnedWithoutDuplicates()
      throws Exception {
    McpConnection c = connection(Jvm.stdioServer("crashy", List.of(), Map.of()), LIMITS);
    List<String> seen = new CopyOnWriteArrayList<>();
    c.addStateListener((t, cause) -> seen.add(t + cause.map(d -> ":" + d.wire()).orElse("")));
    List<String> toolEvents = new CopyOnWriteArrayList<>();
    c.addToolListener(
        new ToolRegistry.Listener() {
          @Override
          public void added(ToolDescriptor t) {
            toolEvents.add("+" + t.name());
          }

          @Override
          public void removed(ToolDescriptor t) {
            toolEvents.add("-" + t.name());
          }
        });
    get(c.connect());
    int before = registry.all().size();
    CompletableFuture<ToolCallResult> slow = c.callTool("sleep", Map.of("ms", 120_000));

    CompletableFuture<ToolCallResult> dying = c.callTool("die", Map.of());

    assertThat(diagnosticOf(dying)).isEqualTo(McpDiagnostic.MCP_DISCONNECTED);
    assertThat(diagnosticOf(slow)).isEqualTo(McpDiagnostic.MCP_DISCONNECTED);
    await().atMost(WAIT).until(() -> c.state() == ConnectionState.CONNECTED);
    assertThat(seen).contains("LOST:mcp_disconnected", "RECONNECTED");
    assertThat(registry.all()).hasSize(before);
    assertThat(toolEvents.stream().filter(e -> e.equals("+echo"))).hasSize(2);
    assertThat(toolEvents.stream().filter(e -> e.equals("-echo"))).hasSize(1);
    assertThat(toolEvents).hasSize(before * 3);
    assertThat(get(c.callTool("echo", Map.of("text", "back"))).text()).isEqualTo("back");
    assertThat(spawned).hasSizeGreaterThanOrEqualTo(2);
  }

  @Test
  void aLossReportedLateForAFailedReconnectAttemptLeavesTheConnectionOfTheNextAttemptAlone()
      throws Exception {
    McpServerConfig.Stdio cfg = Jvm.stdioServer("late", List.of(), Map.of());
    List<LossListener> listeners = new CopyOnWriteArrayList<>();
    TransportFactory real = spawning(cfg, LIMITS);
    McpConnection c =
        connection(
            cfg.name(),
            LIMITS,
            lost -> {
              listeners.add(lost);
              if (listeners.size() == 2) {
                // The first reconnect attempt fails; its transport's loss is reported later.
                throw new McpException(McpDiagnostic.SPAWN_FAILED, "late", "no start", "");
              }
              return real.create(lost);
            });
    get(c.connect());
    c.callTool("die", Map.of());
    await()
        .atMost(WAIT)
        .until(() -> listeners.size() == 3 && c.state() == ConnectionState.CONNECTED);
    long reconnected = pidOf(c);

    listeners.get(1).lost(McpFailures.disconnected("late", "server process exited with 3"));

    assertThat(c.state()).isEqualTo(ConnectionState.CONNECTED);
    assertThat(pidOf(c)).isEqualTo(reconnected);
    assertThat(listeners).hasSize(3);
  }

  @Test
  void aListChangedNotificationRefreshesTheRegisteredTools() throws Exception {
    McpConnection c = connection(Jvm.stdioServer("growing", List.of(), Map.of()), LIMITS);
    get(c.connect());

    get(c.callTool("add_tool", Map.of("name", "fresh")));

    await().atMost(WAIT).until(() -> registry.find("growing", "fresh").isPresent());
    assertThat(get(c.callTool("fresh", Map.of())).text()).isEqualTo("fresh");
  }

  /**
   * A server that ignores SIGTERM, and the grandchild it left, each gone by pid within the
   * reaping's bound: stdin closed, {@code stopGrace}, SIGTERM to the group, {@code stopGrace},
   * SIGKILL.
   */
  @ParameterizedTest
  @EnumSource(
      value = McpProtocol.class,
      names = {"V2025_11_25", "V2026_07_28"})
  void aSigtermDeafServerAndItsGrandchildAreBothReapedOnStop(McpProtocol protocol)
      throws Exception {
    McpServerConfig.Stdio deaf =
        (protocol == McpProtocol.V2026_07_28
                ? Jvm.modernStdioServer("deaf", "--ignore-sigterm")
                : Jvm.stdioServer("deaf", List.of(), Map.of(), "--ignore-sigterm"))
            .withProtocol(protocol);
    McpConnection c =
        connection(
            deaf.name(),
            LIMITS,
            McpTransports.factory(deaf, LIMITS, McpCredentials.fromEnvironment()));
    get(c.connect());
    long server = pidOf(c);
    long grandchild = Long.parseLong(get(c.callTool("spawn_grandchild", Map.of())).text());
    assertThat(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive)).contains(true);

    long start = System.nanoTime();
    c.stop();

    Duration bound = LIMITS.stopGrace().multipliedBy(2).plus(REAP_MARGIN);
    while ((alive(server) || alive(grandchild)) && System.nanoTime() - start < bound.toNanos()) {
      Thread.sleep(50);
    }
    assertThat(alive(server)).as("the server %d alive after %s", server, bound).isFalse();
    assertThat(alive(grandchild))
        .as("the grandchild %d alive after %s", grandchild, bound)
        .isFalse();
  }

  /**
   * A server pinned to 2026-07-28 that answers no {@code server/discover} is refused, and the
   * process started to ask it is reaped (no 2025 handshake will take it over).
   */
  @Test
  void aServerPinnedTo20260728ThatDoesNotAnswerDiscoverIsRefusedAndItsProcessReaped()
      throws Exception {
    McpServerConfig.Stdio old =
        Jvm.stdioServer("old", List.of(), Map.of(), "--ignore-sigterm")
            .withProtocol(McpProtocol.V2026_07_28);
    McpClientConfig limits = LIMITS.withConnectTimeout(Duration.ofSeconds(10));
    Set<Long> before = pidsUnderThisJvm();
    McpConnection c =
        connection(
            old.name(),
            limits,
            McpTransports.factory(old, limits, McpCredentials.fromEnvironment()));

    assertThat(diagnosticOf(c.connect())).isEqualTo(McpDiagnostic.HANDSHAKE_REJECTED);

    Duration bound = LIMITS.stopGrace().multipliedBy(2).plus(REAP_MARGIN);
    long start = System.nanoTime();
    Set<Long> started = new java.util.HashSet<>(pidsUnderThisJvm());
    started.removeAll(before);
    while (started.stream().anyMatch(StdioConnectionTest::alive)
        && System.nanoTime() - start < bound.toNanos()) {
      Thread.sleep(50);
    }
    assertThat(started.stream().filter(StdioConnectionTest::alive))
        .as("the probed processes alive after %s", bound)
        .isEmpty();
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static Set<Long> pidsUnderThisJvm() {
    return ProcessHandle.current()
        .descendants()
        .map(ProcessHandle::pid)
        .collect(java.util.stream.Collectors.toSet());
  }

  @Test
  void aServerThatNeverAnswersTimesOutTheHandshakeAndIsReaped() throws Exception {
    McpConnection c =
        connection(
            Jvm.stdioServer("mute", List.of(), Map.of(), "--silent"),
            LIMITS.withConnectTimeout(Duration.ofSeconds(3)));

    assertThat(diagnosticOf(c.connect())).isEqualTo(McpDiagnostic.HANDSHAKE_TIMEOUT);

    assertThat(c.state()).isEqualTo(ConnectionState.DISCONNECTED);
    long pid = spawned.getFirst().pid().orElseThrow();
    await()
        .atMost(WAIT)
        .until(() -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) == false);
  }

  @Test
  void stopDuringConnectLeavesNoProcessBehind() throws Exception {
    McpConnection c =
        connection(
            Jvm.stdioServer("aborted", List.of(), Map.of(), "--silent", "--ignore-sigterm"),
            LIMITS);
    CompletableFuture<Void> connecting = c.connect();
    await().atMost(WAIT).until(() -> !spawned.isEmpty() && spawned.getFirst().pid().isPresent());
    long pid = spawned.getFirst().pid().orElseThrow();

    c.stop();

    assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
    assertThat(diagnosticOf(connecting)).isEqualTo(McpDiagnostic.MCP_DISCONNECTED);
    await()
        .atMost(WAIT)
        .until(() -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) == false);
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(
            t ->
                t.getName().endsWith("-aborted")
                    && t.isAlive()
                    && t.getName().startsWith("mcp-connect"));
  }

  @Test
  void aCommandThatDoesNotExistIsSpawnFailed() {
    McpServerConfig.Stdio cfg =
        new McpServerConfig.Stdio(
            "ghost", "/nonexistent/mcp-server", List.of(), List.of(), Map.of(), Optional.empty());
    McpConnection c = connection(cfg, LIMITS);

    assertThat(diagnosticOf(c.connect())).isEqualTo(McpDiagnostic.SPAWN_FAILED);
    assertThat(c.state()).isEqualTo(ConnectionState.DISCONNECTED);
    assertThatThrownBy(() -> get(c.callTool("echo", Map.of("text", "x"))))
        .hasCauseInstanceOf(McpException.class);
  }

  @Test
  void cancellingAConnectInFlightStopsTheConnectionAndItsProcess() throws Exception {
    McpConnection c =
        connection(Jvm.stdioServer("cancelled", List.of(), Map.of(), "--silent"), LIMITS);
    CompletableFuture<Void> connecting = c.connect();
    await().atMost(WAIT).until(() -> !spawned.isEmpty() && spawned.getFirst().pid().isPresent());
    long pid = spawned.getFirst().pid().orElseThrow();

    connecting.cancel(true);

    await().atMost(WAIT).until(() -> c.state() == ConnectionState.CLOSED);
    await()
        .atMost(WAIT)
        .until(() -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) == false);
  }

  @Test
  void cancellingACallAbandonsItAndTheConnectionStaysUsable() throws Exception {
    McpConnection c = connection(Jvm.stdioServer("patient", List.of(), Map.of()), LIMITS);
    get(c.connect());
    CompletableFuture<ToolCallResult> slow = c.callTool("sleep", Map.of("ms", 120_000));

    assertThat(slow.cancel(true)).isTrue();

    assertThat(slow).isCancelled();
    assertThat(get(c.callTool("echo", Map.of("text", "next"))).text()).isEqualTo("next");
    assertThat(c.state()).isEqualTo(ConnectionState.CONNECTED);
  }
}
