package dev.flows.mcp.client;

import static dev.flows.mcp.client.McpTestSupport.WAIT;
import static dev.flows.mcp.client.McpTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpTask;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.mcp.testkit.NodePeers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interop with the TypeScript SDK's experimental tasks (2025-11-25, SEP-1686): our client's
 * experimental-tasks path against {@code ops/ci/peers/task-server.mjs}, a real Node server on
 * {@code @modelcontextprotocol/sdk}, installed by {@code ops/ci/install-node-peers} (skipped with a
 * message when absent).
 */
class TsTaskServerInteropTest {
  private static final CallOptions TASKS =
      CallOptions.PLAIN.withTasks(CallOptions.TaskMode.AUTOMATIC);

  @TempDir Path dir;
  private McpConnection c;

  @BeforeEach
  void connect() throws Exception {
    Optional<McpServerConfig.Stdio> server = NodePeers.tsTaskServer("ts-tasks", events());
    assumeTrue(server.isPresent(), NodePeers.SKIP_TASK_SERVER);
    c = McpTestSupport.connection(server.get(), McpClientConfig.DEFAULTS);
    get(c.connect());
  }

  @AfterEach
  void stop() {
    if (c != null) {
      c.stop();
    }
  }

  private Path events() {
    return dir.resolve("events.jsonl");
  }

  private List<String> events(String taskId) throws Exception {
    List<String> out = new ArrayList<>();
    if (Files.exists(events())) {
      for (String l : Files.readAllLines(events())) {
        JsonNode n = Jackson.mapper().readTree(l);
        if (n.path("taskId").asText().equals(taskId)) {
          out.add(n.path("event").asText());
        }
      }
    }
    return out;
  }

  private static McpTask created(ToolCallOutcome o) {
    assertThat(o).isInstanceOf(ToolCallOutcome.TaskCreated.class);
    return ((ToolCallOutcome.TaskCreated) o).task();
  }

  private McpTask pollToEnd(McpTask task) throws Exception {
    Instant end = Instant.now().plus(WAIT);
    McpTask now = task;
    while (!now.terminal()) {
      assertThat(Instant.now()).as("task %s still %s", task.taskId(), now.status()).isBefore(end);
      Thread.sleep(now.pollInterval().orElse(Duration.ofMillis(100)).toMillis());
      now = get(c.getTask(task.tool(), task.taskId()));
    }
    return now;
  }

  private static Map<String, Object> key(String k) {
    return Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, k);
  }

  @Test
  void aTypeScriptTaskServerOf2025_11_25RunsTheCallAsATaskThatWePollToItsResult() throws Exception {
    McpTask task = created(get(c.call("slow", Map.of("ms", 600), key("ts-1"), TASKS)));
    assertThat(task.protocolVersion()).isEqualTo("2025-11-25");
    assertThat(task.status()).isEqualTo("working");

    McpTask done = pollToEnd(task);

    assertThat(c.protocolVersion()).isEqualTo("2025-11-25");
    assertThat(done.taskId()).isEqualTo(task.taskId());
    assertThat(done.state()).isInstanceOf(McpTask.State.Completed.class);
    assertThat(((McpTask.State.Completed) done.state()).result().text())
        .isEqualTo("slow done after 600 ms");
    assertThat(events(task.taskId())).containsExactly("task.created", "task.completed");
  }

  @Test
  void aTaskCancelledWithTasksCancelEndsCancelledOnTheTypeScriptServer() throws Exception {
    McpTask task = created(get(c.call("slow", Map.of("ms", 1_500), key("ts-2"), TASKS)));

    get(c.cancelTask(task.taskId()));
    McpTask after = get(c.getTask("slow", task.taskId()));

    assertThat(after.status()).isEqualTo("cancelled");
    assertThat(after.state()).isInstanceOf(McpTask.State.Cancelled.class);
    // The server's own work sees the cancellation when it would have finished.
    Instant end = Instant.now().plus(WAIT);
    while (events(task.taskId()).size() < 2 && Instant.now().isBefore(end)) {
      Thread.sleep(100);
    }
    assertThat(events(task.taskId())).containsExactly("task.created", "task.ended");
  }
}
