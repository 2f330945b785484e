package dev.flows.worker.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.sun.net.httpserver.HttpServer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.mcp.testkit.HostileServer;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.NoProcessLeftBehind;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hostile peers through the worker's call path (claim, lease, effect election, call, completion),
 * each while another run's call finishes: a stdio server that ignores SIGTERM and leaves a
 * grandchild behind is reaped with that grandchild when the worker's sessions close, and an HTTP
 * server that redirects to another host ends the attempt without the other host hearing of it; on
 * the in-memory journal and on Postgres. The database server starts before the class's processes
 * are counted, so only what the tests start is looked for.
 */
@ExtendWith({HostileJournal.ServerFirst.class, NoProcessLeftBehind.class})
class HostileMcpPeersTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final WorkerId WORKER = new WorkerId("hostile-peers-worker");

  /**
   * The reaping's own waits (stdin closed, the stop grace, SIGTERM, the stop grace, SIGKILL), with
   * room for a loaded machine.
   */
  private static final Duration REAPED_WITHIN =
      McpClientConfig.DEFAULT_STOP_GRACE.multipliedBy(2).plus(Duration.ofSeconds(10));

  private final McpSessions sessions =
      new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment());
  private final List<HttpServer> httpServers = new java.util.ArrayList<>();
  private final List<HostileJournal.Opened> journals = new java.util.ArrayList<>();

  @AfterEach
  void close() {
    sessions.close();
    httpServers.forEach(s -> s.stop(0));
    journals.forEach(HostileJournal.Opened::close);
  }

  private Journal journal;
  private InlineMcpCalls inline;

  /** This test's journal, of {@code kind}, opened before its processes are counted. */
  private void open(HostileJournal kind, String label) {
    HostileJournal.Opened opened = kind.open(label);
    journals.add(opened);
    journal = opened.journal();
    inline = HostileCalls.inline(journal, sessions, WORKER);
  }

  private CompletableFuture<InlineMcpCalls.Result> call(
      String run, JsonNode connection, String server, String tool) {
    return HostileCalls.call(
        inline, HostileCalls.request(run, connection, server, tool, 1), server, tool);
  }

  private static JsonNode calm() {
    return McpServerConfigJson.write(
        HostileServer.stdio("calm").withProtocol(McpProtocol.V2025_11_25));
  }

  private static Set<ProcessHandle> descendants() {
    return ProcessHandle.current().descendants().collect(Collectors.toSet());
  }

  /**
   * The processes under this JVM started since {@code before} was taken, but for those under a
   * process already there (a database server's own backends, as the journal connects).
   */
  private static Set<ProcessHandle> startedSince(Set<ProcessHandle> before) {
    Set<ProcessHandle> started = new HashSet<>(descendants());
    started.removeAll(before);
    before.forEach(p -> p.descendants().forEach(started::remove));
    return started;
  }

  @ParameterizedTest
  @CsvSource({
    "IN_MEMORY, V2025_11_25",
    "IN_MEMORY, V2026_07_28",
    "POSTGRES, V2025_11_25",
    "POSTGRES, V2026_07_28"
  })
  void aSigtermDeafServerAndTheGrandchildItLeftAreReapedWhenTheWorkersSessionsClose(
      HostileJournal kind, McpProtocol protocol) throws Exception {
    open(kind, "peers_deaf");
    JsonNode deaf =
        McpServerConfigJson.write(
            (protocol == McpProtocol.V2026_07_28
                    ? Jvm.modernStdioServer("deaf", "--ignore-sigterm")
                    : Jvm.stdioServer("deaf", List.of(), Map.of(), "--ignore-sigterm"))
                .withProtocol(protocol));
    Set<ProcessHandle> before = descendants();

    CompletableFuture<InlineMcpCalls.Result> spawn =
        call("spawn", deaf, "deaf", "spawn_grandchild");
    CompletableFuture<InlineMcpCalls.Result> echo = call("echo-deaf", calm(), "calm", "echo");

    assertThat(spawn.get(60, TimeUnit.SECONDS)).isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
    assertThat(echo.get(60, TimeUnit.SECONDS)).isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
    Set<ProcessHandle> started = startedSince(before);
    assertThat(started)
        .as("the two servers and the grandchild the deaf one left")
        .hasSizeGreaterThanOrEqualTo(3);

    assertReapedOnceTheSessionsClose(started);
  }

  /** Closes the worker's sessions and waits for each of {@code started} to be gone. */
  private void assertReapedOnceTheSessionsClose(Set<ProcessHandle> started)
      throws InterruptedException {
    long start = System.nanoTime();
    sessions.close();
    while (started.stream().anyMatch(ProcessHandle::isAlive)
        && System.nanoTime() - start < REAPED_WITHIN.toNanos()) {
      Thread.sleep(50);
    }
    assertThat(started.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid))
        .as("still alive %s after the sessions closed", Duration.ofNanos(System.nanoTime() - start))
        .isEmpty();
  }

  /**
   * A SIGTERM-deaf 2025 server pinned to 2026-07-28 answers no {@code server/discover}: the attempt
   * ends {@code handshake_rejected} (its lease let go) and no process started to ask it is left.
   */
  @ParameterizedTest
  @EnumSource(HostileJournal.class)
  void aDeafServerPinnedTo20260728ThatAnswersNoDiscoverEndsTheAttemptAndLeavesNoProcess(
      HostileJournal kind) throws Exception {
    open(kind, "peers_pinned");
    JsonNode pinned =
        McpServerConfigJson.write(
            Jvm.stdioServer("pinned", List.of(), Map.of(), "--ignore-sigterm")
                .withProtocol(McpProtocol.V2026_07_28));
    Set<ProcessHandle> before = descendants();

    CompletableFuture<InlineMcpCalls.Result> refused = call("refused", pinned, "pinned", "echo");
    CompletableFuture<InlineMcpCalls.Result> echo = call("echo-pinned", calm(), "calm", "echo");

    assertThat(echo.get(60, TimeUnit.SECONDS)).isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
    assertThat(refused.get(60, TimeUnit.SECONDS))
        .isNotInstanceOf(InlineMcpCalls.Result.Succeeded.class);
    RunRef run = new RunRef("refused");
    assertThat(
            HostileCalls.firstCompletion(journal, run)
                .trajectoryTail()
                .orElseThrow()
                .path("diagnostic")
                .asText())
        .isEqualTo("handshake_rejected");
    assertThat(journal.run(run).orElseThrow().steps().getFirst().status())
        .isNotEqualTo(StepStatus.RUNNING);

    assertReapedOnceTheSessionsClose(startedSince(before));
  }

  @ParameterizedTest
  @CsvSource({
    "IN_MEMORY, V2025_11_25",
    "IN_MEMORY, V2026_07_28",
    "POSTGRES, V2025_11_25",
    "POSTGRES, V2026_07_28"
  })
  void aRedirectToAnotherHostEndsTheAttemptAndTheOtherHostGetsNoRequestWhileAnotherRunFinishes(
      HostileJournal kind, McpProtocol protocol) throws Exception {
    open(kind, "peers_redirect");
    AtomicInteger elsewhereRequests = new AtomicInteger();
    HttpServer elsewhere = server();
    elsewhere.createContext(
        "/",
        x -> {
          elsewhereRequests.incrementAndGet();
          x.sendResponseHeaders(500, -1);
          x.close();
        });
    URI target = URI.create("http://127.0.0.1:" + elsewhere.getAddress().getPort() + "/mcp");
    HttpServer moved = server();
    moved.createContext(
        "/",
        x -> {
          x.getResponseHeaders().add("Location", target.toString());
          x.sendResponseHeaders(307, -1);
          x.close();
        });
    JsonNode movedConnection =
        McpServerConfigJson.write(
            new McpServerConfig.Http(
                "moved",
                URI.create("http://localhost:" + moved.getAddress().getPort() + "/mcp"),
                Map.of(),
                new McpAuth.None(),
                protocol,
                OptionalInt.empty()));

    CompletableFuture<InlineMcpCalls.Result> redirected =
        call("redirected", movedConnection, "moved", "echo");
    CompletableFuture<InlineMcpCalls.Result> echo = call("echo-moved", calm(), "calm", "echo");

    assertThat(echo.get(60, TimeUnit.SECONDS)).isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
    assertThat(redirected.get(60, TimeUnit.SECONDS))
        .isNotInstanceOf(InlineMcpCalls.Result.Succeeded.class);
    RunRef run = new RunRef("redirected");
    JournalEntry.StepCompleted first = HostileCalls.firstCompletion(journal, run);
    assertThat(first.trajectoryTail().orElseThrow().path("diagnostic").asText())
        .isEqualTo("handshake_rejected");
    assertThat(journal.run(run).orElseThrow().steps().getFirst().status())
        .isNotEqualTo(StepStatus.RUNNING);
    assertThat(elsewhereRequests).hasValue(0);
  }

  private HttpServer server() throws java.io.IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    s.start();
    httpServers.add(s);
    return s;
  }
}
