package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The harness of the task-call launcher tests: a flows home, a flow directory holding {@code
 * slow.flow.java} (one {@code slow {ms}} call on the server {@code jobs}) and the server's events
 * file, and the CLI reads of a run's task call.
 */
final class TaskRuns {
  static final ObjectMapper JSON = new ObjectMapper();

  static final String SLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Slow implements Flow<JsonNode, JsonNode> {
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

  final Path home;
  final Path flowDir;
  final Path events;

  TaskRuns(String name) throws IOException {
    home = Files.createTempDirectory("flows-home-" + name);
    flowDir = Files.createTempDirectory("flows-" + name);
    Files.writeString(flowDir.resolve("slow.flow.java"), SLOW);
    events = flowDir.resolve("events.jsonl");
  }

  /** Writes flows.json with {@code jobs} as the server's entry. */
  void configure(ObjectNode jobs) throws IOException {
    ObjectNode config = JSON.createObjectNode();
    config.putObject("mcp").set("jobs", jobs);
    Files.writeString(flowDir.resolve("flows.json"), config.toString());
  }

  void stop() throws Exception {
    flows("db", "stop");
    PgBinaries.deleteTree(home);
    PgBinaries.deleteTree(flowDir);
  }

  Process worker(String... extra) throws IOException {
    List<String> args = new ArrayList<>(List.of("worker", "--flows", flowDir.toString()));
    args.addAll(List.of(extra));
    return new Launcher(home).start(args.toArray(String[]::new));
  }

  String startRun(long ms) throws Exception {
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

  /** Watches the run to its end and answers its output. */
  JsonNode output(String run) throws Exception {
    Launcher.Ran watch = flows("runs", "watch", run, "--json");
    assertThat(watch.exit()).as(watch.err()).isZero();
    List<String> lines = watch.out().lines().filter(l -> !l.isBlank()).toList();
    return JSON.readTree(lines.getLast()).path("output");
  }

  /** The call step ({@code runs show --json}) of the run's child call, once it has a task. */
  JsonNode childCall(String run) throws Exception {
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

  /** A run and the task id of its call. */
  record Killed(String run, String taskId) {}

  /**
   * Starts a worker and a 20 s {@code slow} run, waits until the call's task is journaled as
   * working, lets {@code after} pass, and SIGKILLs the worker.
   */
  Killed killAWorkerDuringItsTask(Duration after) throws Exception {
    Process first = worker();
    try {
      String run = startRun(20_000);
      JsonNode task = awaitTask(run, t -> t.path("status").asText().equals("working"));
      Thread.sleep(after.toMillis());
      return new Killed(run, task.path("taskId").asText());
    } finally {
      ProcessTree.kill(first);
    }
  }

  /**
   * Starts a second worker that finishes {@code run} (whose first worker died during task {@code
   * taskId}) with the {@code slow} tool's 20 s result; answers the call step after checking it
   * shows the same task completed, its receipt names it and its attempts ran on two workers.
   */
  JsonNode finishOnASecondWorker(String run, String taskId) throws Exception {
    Process second = worker();
    try {
      assertThat(output(run).path("said").asText()).isEqualTo("slow done after 20000 ms");
    } finally {
      ProcessTree.stop(second);
    }
    JsonNode call = childCall(run);
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
    return call;
  }

  /** The task of the run's call as {@code runs show --json} shows it, once {@code until} holds. */
  JsonNode awaitTask(String run, Predicate<JsonNode> until) throws Exception {
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
  List<JsonNode> logged(String event, String field, String value) throws IOException {
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

  Launcher.Ran flows(String... args) throws Exception {
    return new Launcher(home).run(args);
  }
}
