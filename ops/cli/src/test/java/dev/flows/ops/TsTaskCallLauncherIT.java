package dev.flows.ops;

import static dev.flows.ops.TaskRuns.JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.mcp.testkit.NoProcessLeftBehind;
import dev.flows.mcp.testkit.NodePeers;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Interop across a worker crash: the flow's server is the TypeScript SDK's 2025-11-25
 * experimental-tasks server ({@code ops/ci/peers/task-server.mjs}) over Streamable HTTP, a process
 * this test owns, so its in-memory tasks outlive the workers. The first worker is SIGKILLed once
 * the call's task is journaled; a second worker finishes the run by polling the same task id, and
 * the server's own events show one task created. Skipped when the peer is absent.
 */
@ExtendWith(NoProcessLeftBehind.class)
class TsTaskCallLauncherIT {
  private static TaskRuns runs;
  private static Optional<NodePeers.TsTaskHttpServer> server = Optional.empty();

  @BeforeAll
  static void setUp() throws Exception {
    runs = new TaskRuns("ts-task-it");
    server = NodePeers.tsTaskServerHttp(runs.events);
    if (server.isPresent()) {
      ObjectNode jobs = JSON.createObjectNode();
      jobs.put("url", server.get().url().toString());
      jobs.put("protocol", "2025-11-25");
      runs.configure(jobs);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (server.isPresent()) {
      server.get().close();
    }
    runs.stop();
  }

  @Test
  void aTypeScriptTaskServersTaskIsFinishedByASecondWorkerAfterTheFirstIsKilled() throws Exception {
    assumeTrue(server.isPresent(), NodePeers.SKIP_TASK_SERVER);
    // Once the task is journaled (flows.mcp_tasks), the worker that made the call dies.
    TaskRuns.Killed killed = runs.killAWorkerDuringItsTask(Duration.ZERO);
    String run = killed.run();
    String taskId = killed.taskId();
    assertThat(runs.logged("task.completed", "taskId", taskId))
        .as("the worker died while the task still worked")
        .isEmpty();

    runs.finishOnASecondWorker(run, taskId);
    assertThat(runs.logged("task.created", "event", "task.created"))
        .as("one task created on the server")
        .hasSize(1);
    assertThat(runs.logged("task.completed", "taskId", taskId)).hasSize(1);
  }
}
