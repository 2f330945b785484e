package dev.flows.ops;

import static dev.flows.ops.TaskRuns.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.NoProcessLeftBehind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A long tool call made as a task survives the worker that made it: real worker processes through
 * the launcher and the real task test server (2026-07-28 over stdio, tasks kept in a file). The
 * first worker is SIGKILLed a few seconds into a 20 s task; a second worker finishes the call by
 * polling the same task id, and the server's own log shows one {@code tools/call} and one task.
 * Cancelling a run while its task works gets the task cancelled on the server.
 */
@ExtendWith(NoProcessLeftBehind.class)
class TaskCallLauncherIT {
  private static TaskRuns runs;
  private static Path state;

  @BeforeAll
  static void setUp() throws IOException {
    runs = new TaskRuns("task-it");
    state = runs.flowDir.resolve("tasks.json");
    McpServerConfig.Stdio server =
        Jvm.taskStdioServer("jobs", "--state=" + state, "--events=" + runs.events);
    ObjectNode jobs = JSON.createObjectNode();
    jobs.put("command", server.command());
    jobs.put("protocol", "2026-07-28");
    ArrayNode args = jobs.putArray("args");
    server.args().forEach(args::add);
    runs.configure(jobs);
  }

  @AfterAll
  static void stop() throws Exception {
    runs.stop();
  }

  @Test
  void aWorkerKilledDuringATaskLeavesItToAnotherWorkerThatPollsTheSameTaskWithoutCallingAgain()
      throws Exception {
    // A few seconds into the task, the worker that made the call dies.
    TaskRuns.Killed killed = runs.killAWorkerDuringItsTask(Duration.ofSeconds(4));
    String run = killed.run();
    String taskId = killed.taskId();

    JsonNode call = runs.finishOnASecondWorker(run, taskId);
    String key = call.path("effects").get(0).path("idempotencyKey").asText();

    assertThat(runs.logged("tools/call", "key", key)).as("one tools/call").hasSize(1);
    assertThat(runs.logged("task.created", "key", key)).as("one task").hasSize(1);
    assertThat(runs.logged("tasks/get", "taskId", taskId)).isNotEmpty();
  }

  @Test
  void cancellingARunWhileItsTaskWorksCancelsTheTaskOnTheServer() throws Exception {
    Process worker = runs.worker("--reconcile", "1s");
    try {
      String run = runs.startRun(120_000);
      String taskId = runs.awaitTask(run, t -> true).path("taskId").asText();

      Launcher.Ran cancel = runs.flows("runs", "cancel", run);
      assertThat(cancel.exit()).as(cancel.err()).isZero();

      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (runs.logged("tasks/cancel", "taskId", taskId).isEmpty() && System.nanoTime() < until) {
        Thread.sleep(200);
      }
      assertThat(runs.logged("tasks/cancel", "taskId", taskId)).hasSize(1);
      JsonNode kept = null;
      for (String line : Files.readAllLines(state)) {
        JsonNode t = JSON.readTree(line);
        if (t.path("taskId").asText().equals(taskId)) {
          kept = t;
        }
      }
      assertThat(kept).isNotNull();
      assertThat(kept.path("cancelled").asBoolean()).as("the server's state file").isTrue();
      JsonNode shown = runs.awaitTask(run, t -> t.has("cancelSentAt"));
      assertThat(shown.path("cancelReason").asText()).isEqualTo("its run ended canceled");
    } finally {
      ProcessTree.stop(worker);
    }
  }
}
