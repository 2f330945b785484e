package dev.flows.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.mcp.ConnectionState;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.mcp.testkit.Jvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One worker's MCP sessions under concurrent use. Found by the chaos suite: callers that found the
 * connection busy connecting (a worker's concurrent first calls, or calls during a reconnect after
 * the server died) failed {@code mcp_disconnected} at once, and enough of them exhausted a step's
 * retries and failed healthy runs; and a server dying during a reconnect's handshake left the
 * connection reconnecting for ever.
 */
class McpSessionsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private final McpSessions sessions =
      new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment());
  private final JsonNode connection =
      McpServerConfigJson.write(Jvm.stdioServer("shared", List.of(), Map.of()));

  @AfterEach
  void close() {
    sessions.close();
  }

  private static String pid(McpTransportPort s) throws Exception {
    return s.callTool("pid", Map.of(), Map.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS).text();
  }

  @Test
  void concurrentFirstCallsAllJoinTheOneConnectAndReachTheSameServer() throws Exception {
    int callers = 4;
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<String>> pids = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        pids.add(
            pool.submit(
                () -> {
                  go.await();
                  return pid(sessions.session(connection));
                }));
      }
      go.countDown();
      List<String> seen = new ArrayList<>();
      for (Future<String> f : pids) {
        seen.add(f.get(WAIT.toSeconds(), TimeUnit.SECONDS));
      }
      assertThat(seen).hasSize(callers).containsOnly(seen.getFirst());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aServerDyingDuringTheReconnectHandshakeIsReconnectedOnceMore(@TempDir Path dir)
      throws Exception {
    McpServerConfig.Stdio real = Jvm.stdioServer("flaky", List.of(), Map.of());
    Path spawns = dir.resolve("spawns");
    Path pids = dir.resolve("pids");
    StringBuilder exec = new StringBuilder("exec '" + real.command() + "'");
    real.args().forEach(a -> exec.append(" '").append(a).append("'"));
    // The second spawn (the first reconnect) dies at once, during its probe or its handshake.
    String script =
        ("n=0; [ -f '%1$s' ] && read n < '%1$s'; echo $((n + 1)) > '%1$s'; echo $$ >> '%2$s';"
                + " [ \"$n\" = 1 ] && exit 3; %3$s")
            .formatted(spawns, pids, exec);
    JsonNode flaky =
        McpServerConfigJson.write(
            new McpServerConfig.Stdio(
                "flaky", "/bin/sh", List.of("-c", script), List.of(), Map.of(), Optional.empty()));
    McpTransportPort first = sessions.session(flaky);
    String before = pid(first);
    first.callTool("die", Map.of(), Map.of()).handle((r, e) -> r);
    await().atMost(WAIT).until(() -> first.state() == ConnectionState.RECONNECTING);

    McpTransportPort again = sessions.session(flaky);

    assertThat(again.state()).isEqualTo(ConnectionState.CONNECTED);
    String now = pid(again);
    assertThat(now).isNotEqualTo(before);
    List<Long> started = Files.readAllLines(pids).stream().map(Long::parseLong).toList();
    assertThat(started.getLast()).isEqualTo(Long.parseLong(now));
    assertThat(started.subList(0, started.size() - 1))
        .allSatisfy(
            p ->
                assertThat(ProcessHandle.of(p).map(ProcessHandle::isAlive))
                    .isNotEqualTo(Optional.of(true)));
    // One start per server needed: the first, the one that died, the one connected now.
    assertThat(Files.readString(spawns).strip()).isEqualTo("3");
  }

  @Test
  void aCallerArrivingDuringAReconnectWaitsForItInsteadOfFailing() throws Exception {
    McpTransportPort first = sessions.session(connection);
    String before = pid(first);
    // The server halts mid-call: the connection is lost and reconnects in the background.
    first.callTool("die", Map.of(), Map.of()).handle((r, e) -> r);
    await().atMost(WAIT).until(() -> first.state() == ConnectionState.RECONNECTING);

    McpTransportPort again = sessions.session(connection);

    assertThat(again.state()).isEqualTo(ConnectionState.CONNECTED);
    assertThat(pid(again)).isNotEqualTo(before);
  }
}
