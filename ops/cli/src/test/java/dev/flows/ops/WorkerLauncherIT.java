package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.mcp.testkit.NoProcessLeftBehind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code flows worker} as an operator runs it, through the real launcher, with no database
 * configured: every command shares the one embedded database.
 */
@ExtendWith(NoProcessLeftBehind.class)
class WorkerLauncherIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path home;
  private static Path flow;
  private static Path flowDir;

  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;

      public class Slow implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("slow").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          f.shell("sleep 8").call();
          String second = f.shell("echo second").call().path("stdout").asText().trim();
          return JsonNodeFactory.instance.objectNode().put("second", second);
        }
      }
      """;

  @BeforeAll
  static void setUp() throws IOException {
    home = Files.createTempDirectory("flows-home-worker-it");
    flowDir = Files.createTempDirectory("flows-flow-it");
    flow = Files.writeString(flowDir.resolve("slow.flow.java"), FLOW);
  }

  @AfterAll
  static void stop() throws Exception {
    flows("db", "stop");
    PgBinaries.deleteTree(home);
  }

  @Test
  void aDetachedRunCompletesThroughAWorkerInAnotherProcessOnTheOneEmbeddedDatabase()
      throws Exception {
    Process worker = start("worker", "--flows", flowDir.toString());
    try {
      String run = detach();
      Launcher.Ran watch = flows("runs", "watch", run, "--json");
      assertThat(watch.exit()).as(watch.err()).isZero();
      JsonNode end = lastLine(watch.out());
      assertThat(end.path("run").path("status").asText()).isEqualTo("succeeded");
      assertThat(end.path("output").path("second").asText()).isEqualTo("second");
    } finally {
      ProcessTree.stop(worker);
    }
  }

  @Test
  void aWorkerStoppedWithSigtermMidRunLeavesNoLeaseAndAnotherWorkerFinishesTheRun()
      throws Exception {
    Process first = start("worker", "--flows", flowDir.toString());
    String run;
    int exit;
    try {
      run = detach();
      awaitFirstChild(run);
    } finally {
      exit = ProcessTree.stop(first); // SIGTERM: stop claiming, drain, leave no lease
    }
    assertThat(exit).as("a drained worker exits 0").isZero();
    JsonNode shown = flows("runs", "show", run, "--json").json();
    assertThat(runningSteps(shown.path("run"))).as("no step is left leased").isZero();
    assertThat(shown.path("run").path("status").asText()).isEqualTo("running");

    Process second = start("worker", "--flows", flowDir.toString());
    try {
      Launcher.Ran watch = flows("runs", "watch", run, "--json");
      assertThat(watch.exit()).as(watch.err()).isZero();
      assertThat(lastLine(watch.out()).path("output").path("second").asText()).isEqualTo("second");
    } finally {
      ProcessTree.stop(second);
    }
  }

  static String queued(String name, String queue) {
    return """
        import com.fasterxml.jackson.databind.JsonNode;
        import dev.flows.sdk.*;

        public class NAME implements Flow<JsonNode, JsonNode> {
          public FlowHeader header() {
            return FlowHeader.named("NAME").queue("QUEUE").build();
          }

          public JsonNode run(Ctx f, JsonNode input) {
            return f.step("where", () -> "QUEUE");
          }
        }
        """
        .replace("NAME", name)
        .replace("QUEUE", queue);
  }

  @Test
  void aWorkerWithoutFlowsLeavesAJournalSourceUnclaimedSayingWhyAndAWorkerGivenItsDirectoryRunsIt()
      throws Exception {
    Path dir = Files.createTempDirectory("flows-unaccepted-it");
    Path file = Files.writeString(dir.resolve("unasked.flow.java"), queued("Unasked", "default"));
    Process without = start("worker");
    String run;
    try {
      run = detach(file);
      JsonNode listed = awaitListed(run, r -> r.has("waitingReason"));
      assertThat(listed.path("waitingReason").asText())
          .as("flows.runs_overview.waiting_reason")
          .isEqualTo("no worker accepts this flow source");
      JsonNode shown = flows("runs", "show", run, "--json").json().path("run");
      assertThat(shown.path("waitingReason").asText())
          .isEqualTo("no worker accepts this flow source");
      assertThat(shown.path("steps").get(0).path("attemptCount").asInt())
          .as("never claimed")
          .isZero();
      assertThat(flows("runs", "show", run).out())
          .contains("waiting: no worker accepts this flow source");
    } finally {
      ProcessTree.stop(without);
    }
    Process with = start("worker", "--flows", dir.toString());
    try {
      Launcher.Ran watch = flows("runs", "watch", run, "--json");
      assertThat(watch.exit()).as(watch.err()).isZero();
      assertThat(lastLine(watch.out()).path("run").path("status").asText()).isEqualTo("succeeded");
      assertThat(flows("runs", "show", run, "--json").json().path("run").has("waitingReason"))
          .as("the claim cleared the reason")
          .isFalse();
    } finally {
      ProcessTree.stop(with);
    }
  }

  @Test
  void aWorkerOfOneQueueNeverClaimsARunOfAnotherWhichAWorkerOfThatQueueRuns() throws Exception {
    Path dir = Files.createTempDirectory("flows-queues-it");
    Path a = Files.writeString(dir.resolve("qa.flow.java"), queued("InA", "qa"));
    Path b = Files.writeString(dir.resolve("qb.flow.java"), queued("InB", "qb"));
    Process workerA = start("worker", "--flows", dir.toString(), "--queue", "qa");
    String runB;
    try {
      runB = detach(b);
      String runA = detach(a);
      Launcher.Ran watchA = flows("runs", "watch", runA, "--json");
      assertThat(watchA.exit()).as(watchA.err()).isZero();
      assertThat(lastLine(watchA.out()).path("output").asText()).isEqualTo("qa");
      JsonNode shownB = flows("runs", "show", runB, "--json").json().path("run");
      assertThat(shownB.path("queue").asText()).isEqualTo("qb");
      assertThat(shownB.path("steps").get(0).path("attemptCount").asInt())
          .as("admitted before the queue-qa run, yet never claimed by the queue-qa worker")
          .isZero();
      assertThat(flows("runs", "list", "--queue", "qb", "--json").json().path("runs"))
          .extracting(r -> r.path("runId").asText())
          .containsExactly(runB);
    } finally {
      ProcessTree.stop(workerA);
    }
    Process workerB = start("worker", "--flows", dir.toString(), "--queue", "qb");
    try {
      Launcher.Ran watchB = flows("runs", "watch", runB, "--json");
      assertThat(watchB.exit()).as(watchB.err()).isZero();
      assertThat(lastLine(watchB.out()).path("output").asText()).isEqualTo("qb");
    } finally {
      ProcessTree.stop(workerB);
    }
  }

  /** Waits for the run's row of {@code runs list} (flows.runs_overview) to satisfy {@code done}. */
  private static JsonNode awaitListed(String run, java.util.function.Predicate<JsonNode> done)
      throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    JsonNode row = null;
    while (System.nanoTime() < until) {
      for (JsonNode r : flows("runs", "list", "--json").json().path("runs")) {
        if (r.path("runId").asText().equals(run)) {
          row = r;
        }
      }
      if (row != null && done.test(row)) {
        return row;
      }
      Thread.sleep(300);
    }
    throw new AssertionError("run " + run + " never got there: " + row);
  }

  private static String detach() throws Exception {
    return detach(flow);
  }

  private static String detach(Path file) throws Exception {
    Launcher.Ran r = flows("run", file.toString(), "--detach", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    return JSON.readTree(r.out().lines().findFirst().orElseThrow()).path("run").asText();
  }

  /** The body is under way: its first child (an 8 s command) was admitted. */
  private static void awaitFirstChild(String run) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (System.nanoTime() < until) {
      JsonNode tree = flows("runs", "show", run, "--json").json().path("run");
      if (!tree.path("children").isEmpty()) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the body never started its first child");
  }

  private static int runningSteps(JsonNode run) {
    int n = 0;
    for (JsonNode step : run.path("steps")) {
      if ("running".equals(step.path("status").asText())) {
        n++;
      }
    }
    for (JsonNode child : run.path("children")) {
      n += runningSteps(child);
    }
    return n;
  }

  private static JsonNode lastLine(String out) throws IOException {
    List<String> lines = out.lines().filter(l -> !l.isBlank()).toList();
    return JSON.readTree(lines.getLast());
  }

  private static Launcher.Ran flows(String... args) throws Exception {
    return new Launcher(home).run(args);
  }

  private static Process start(String... args) throws IOException {
    return new Launcher(home).start(args);
  }
}
