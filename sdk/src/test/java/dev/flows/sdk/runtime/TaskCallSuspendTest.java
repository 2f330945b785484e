package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A body whose call the server answered with a task (the task test server over stdio, 2026-07-28)
 * gives its attempt back at once: the task is polled by durable timers, so waiting on it in memory
 * would hold a worker slot and a thread for {@code SdkConfig.suspendAfter} per task.
 */
class TaskCallSuspendTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Job implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("job").mcp("jobs").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String said = f.mcp("jobs").tool("slow").call(Map.of("ms", input.path("ms").asLong())).text();
          return JsonNodeFactory.instance.objectNode().put("said", said);
        }
      }
      """;

  @Test
  void aBodyWhoseCallBecameATaskGivesItsAttemptBackWithoutWaitingSuspendAfter(@TempDir Path dir)
      throws Exception {
    Files.writeString(dir.resolve("job.flow.java"), FLOW);
    var server =
        McpServerConfigJson.write(
            Jvm.taskStdioServer(
                "jobs",
                "--state=" + dir.resolve("tasks.json"),
                "--events=" + dir.resolve("events.jsonl")));
    ObjectNode entry = JSON.createObjectNode();
    entry.set("command", server.path("command"));
    entry.set("args", server.path("args"));
    entry.put("protocol", "2026-07-28");
    ObjectNode config = JSON.createObjectNode();
    config.putObject("mcp").set("jobs", entry);
    Files.writeString(dir.resolve("flows.json"), config.toString());
    LoadedFlow flow = LoadedFlow.load(dir.resolve("job.flow.java").toString(), dir);
    // The task works for less than suspendAfter: a body that waited in memory would never suspend.
    long taskMs = SdkConfig.DEFAULT_SUSPEND_AFTER.toMillis() / 2;
    Journal journal = new InMemoryJournal(Clock.systemUTC());
    try (FlowsEngine engine =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder().pollInterval(Duration.ofMillis(50)).build(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment())) {
      engine.startWorker();
      RunRef root =
          engine
              .start(
                  flow, JsonNodeFactory.instance.objectNode().put("ms", taskMs), Optional.empty())
              .runId();
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(done.status()).as(done.toString()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().path("said").asText())
          .isEqualTo("slow done after " + taskMs + " ms");
      assertThat(Files.readAllLines(dir.resolve("events.jsonl")))
          .as("the call was made as a task")
          .filteredOn(l -> l.contains("\"event\":\"task.created\""))
          .hasSize(1);
      List<CompletionReason> body =
          journal.entries(root).stream()
              .map(r -> r.entry())
              .filter(e -> e instanceof JournalEntry.StepCompleted)
              .map(e -> ((JournalEntry.StepCompleted) e).reason())
              .toList();
      assertThat(body)
          .as("the body suspended on the task, then a replay completed it")
          .containsExactly(CompletionReason.SUSPENDED, CompletionReason.SUCCESS);
    }
  }
}
