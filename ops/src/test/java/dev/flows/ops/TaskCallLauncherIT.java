package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.mcp.testkit.Jvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A long tool call made as a task survives the worker that made it: real worker processes through
 * the launcher and the real task test server (2026-07-28 over stdio, tasks kept in a file). The
 * first worker is SIGKILLed a few seconds into a 20 s task; a second worker finishes the call by
 * polling the same task id, and the server's own log shows one {@code tools/call} and one task.
 * Cancelling a run while its task works gets the task cancelled on the server.
 */
class TaskCallLauncherIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path home;
  private static Path flowDir;
  private static Path events;
  private static Path state;

  static final String SLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Slow implements Flow {
        public FlowHeader header() {
          return FlowHeader.named("slowjob").mcp("jobs").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          long ms = input.path("ms").asLong();
          String said = f.mcp("jobs").tool("slow").call(Map.of("ms", ms)).text();
          return JsonNodeFactory.instance.objectNode().put("said", said);
        }
      }
      """;

  @BeforeAll
  static void setUp() throws IOException {
    home = Files.createTempDirectory("flows-home-task-it");
    flowDir = Files.createTempDirectory("flows-task-it");
    Files.writeString(flowDir.resolve("slow.flow.java"), SLOW);
    events = flowDir.resolve("events.jsonl");
    state = flowDir.resolve("tasks.json");
    McpServerConfig.Stdio server =
        Jvm.taskStdioServer("jobs", "--state=" + state, "--events=" + events);
    ObjectNode config = JSON.createObjectNode();
    ObjectNode jobs = config.putObject("mcp").putObject("jobs");
    jobs.put("command", server.command());
    jobs.put("protocol", "2026-07-28");
    ArrayNode args = jobs.putArray("args");
    server.args().forEach(args::add);
    Files.writeString(flowDir.resolve("flows.json"), config.toString());
  }

  @AfterAll
  static void stop() throws Exception {
    flows("db", "stop");
    PgBinaries.deleteTree(home);
  }

  @Test
  void aWorkerKilledDuringATaskLeavesItToAnotherWorkerThatPollsTheSameTaskWithoutCallingAgain()
      throws Exception {
    Process first = start("worker", "--flows", flowDir.toString());
    String run;
    JsonNode task;
    try {
      run = startRun(20_000);
      task = awaitTask(run, t -> t.path("status").asText().equals("working"));
      // A few seconds into the task, the worker that made the call dies.
      Thread.sleep(4_000);
    } finally {
      first.destroyForcibly();
      first.waitFor(60, TimeUnit.SECONDS);
    }
    String taskId = task.path("taskId").asText();

    Process second = start("worker", "--flows", flowDir.toString());
    try {
      Launcher.Ran watch = flows("runs", "watch", run, "--json");
      assertThat(watch.exit()).as(watch.err()).isZero();
      List<String> lines = watch.out().lines().filter(l -> !l.isBlank()).toList();
      assertThat(JSON.readTree(lines.getLast()).path("output").path("said").asText())
          .isEqualTo("slow done after 20000 ms");
    } finally {
      second.destroy();
      second.waitFor(60, TimeUnit.SECONDS);
    }

    JsonNode call = childCall(run);
    String key = call.path("effects").get(0).path("idempotencyKey").asText();
    assertThat(call.path("task").path("taskId").asText()).isEqualTo(taskId);
    assertThat(call.path("task").path("status").asText()).isEqualTo("completed");
    assertThat(call.path("output").path("taskId").asText())
        .as("the receipt names the task")
        .isEqualTo(taskId);
    Set<String> workers = new HashSet<>();
    for (JsonNode a : call.path("attempts")) {
      workers.add(a.path("workerId").asText());
    }
    assertThat(workers).as("the call's attempts ran on both workers").hasSize(2);

    assertThat(logged("tools/call", "key", key)).as("one tools/call").hasSize(1);
    assertThat(logged("task.created", "key", key)).as("one task").hasSize(1);
    assertThat(logged("tasks/get", "taskId", taskId)).isNotEmpty();
  }

  @Test
  void cancellingARunWhileItsTaskWorksCancelsTheTaskOnTheServer() throws Exception {
    Process worker = start("worker", "--flows", flowDir.toString(), "--reconcile", "1s");
    try {
      String run = startRun(120_000);
      String taskId = awaitTask(run, t -> true).path("taskId").asText();

      Launcher.Ran cancel = flows("runs", "cancel", run);
      assertThat(cancel.exit()).as(cancel.err()).isZero();

      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (logged("tasks/cancel", "taskId", taskId).isEmpty() && System.nanoTime() < until) {
        Thread.sleep(200);
      }
      assertThat(logged("tasks/cancel", "taskId", taskId)).hasSize(1);
      JsonNode kept = null;
      for (String line : Files.readAllLines(state)) {
        JsonNode t = JSON.readTree(line);
        if (t.path("taskId").asText().equals(taskId)) {
          kept = t;
        }
      }
      assertThat(kept).isNotNull();
      assertThat(kept.path("cancelled").asBoolean()).as("the server's state file").isTrue();
      JsonNode shown = awaitTask(run, t -> t.has("cancelSentAt"));
      assertThat(shown.path("cancelReason").asText()).isEqualTo("its run ended canceled");
    } finally {
      worker.destroy();
      worker.waitFor(60, TimeUnit.SECONDS);
    }
  }

  private static String startRun(long ms) throws Exception {
    Launcher.Ran started =
        flows(
            "run",
            flowDir.resolve("slow.flow.java").toString(),
            "--input",
            "{\"ms\":" + ms + "}",
            "--detach",
            "--json");
    assertThat(started.exit()).as(started.err()).isZero();
    return JSON.readTree(started.out().lines().findFirst().orElseThrow()).path("run").asText();
  }

  /** The call step ({@code runs show --json}) of the run's child call, once it has a task. */
  private static JsonNode childCall(String run) throws Exception {
    Launcher.Ran shown = flows("runs", "show", run, "--json");
    assertThat(shown.exit()).as(shown.err()).isZero();
    for (JsonNode c : shown.json().path("run").path("children")) {
      for (JsonNode s : c.path("steps")) {
        if (s.has("task")) {
          return s;
        }
      }
    }
    return JSON.nullNode();
  }

  /** The task of the run's call as {@code runs show --json} shows it, once {@code until} holds. */
  private static JsonNode awaitTask(String run, Predicate<JsonNode> until) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode task = childCall(run).path("task");
      if (task.isObject() && until.test(task)) {
        return task;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the call's task never showed as expected");
  }

  /** The server's events {@code event} whose {@code field} is {@code value}. */
  private static List<JsonNode> logged(String event, String field, String value)
      throws IOException {
    List<JsonNode> out = new ArrayList<>();
    if (!Files.exists(events)) {
      return out;
    }
    for (String line : Files.readAllLines(events)) {
      JsonNode e = JSON.readTree(line);
      if (e.path("event").asText().equals(event) && e.path(field).asText().equals(value)) {
        out.add(e);
      }
    }
    return out;
  }

  private static Launcher.Ran flows(String... args) throws Exception {
    return new Launcher(home).run(args);
  }

  private static Process start(String... args) throws IOException {
    return new Launcher(home).start(args);
  }
}
