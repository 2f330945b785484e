package dev.flows.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpServerConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The {@code server/discover} probe of a stdio server whose process dies while it is probed. A
 * probe that could not send its request starts the server anew for the 2025 handshake, in the same
 * connect attempt; told to the connection, the dead process's loss would be taken for the loss of
 * that attempt and abort the fresh server's handshake.
 */
class StdioProbeTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private final List<McpException> told = new CopyOnWriteArrayList<>();

  private static McpServerConfig.Stdio shell(String script) {
    return new McpServerConfig.Stdio(
        "dying", "/bin/sh", List.of("-c", script), List.of(), Map.of(), Optional.empty());
  }

  @Test
  void aServerDeadBeforeItIsAskedIsStartedAnewAndTheDeadOnesLossIsNotReported() {
    StdioTransport.Probe probe =
        StdioTransport.probe(
            shell("exit 3"),
            McpClientConfig.DEFAULTS,
            told::add,
            WAIT,
            // Its death is seen before the request goes out, as when the prober is descheduled.
            t -> await().atMost(WAIT).until(t::lossSeen));

    assertThat(probe)
        .isInstanceOfSatisfying(
            StdioTransport.Probe.Legacy.class,
            legacy -> assertThat(legacy.transport().pid()).as("a fresh, unstarted one").isEmpty());
    await("no loss reported for the discarded process")
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(told::isEmpty);
  }

  @Test
  void aServerThatDiesAfterReadingTheRequestIsHandedOverAndItsLossReported() {
    StdioTransport.Probe probe =
        StdioTransport.probe(
            shell("read request; exit 3"), McpClientConfig.DEFAULTS, told::add, WAIT);

    assertThat(probe)
        .isInstanceOfSatisfying(
            StdioTransport.Probe.Legacy.class,
            legacy -> assertThat(legacy.transport().pid()).as("the probed one").isPresent());
    await().atMost(WAIT).until(() -> told.size() == 1);
  }
}
