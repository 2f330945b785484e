package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code flows worker} as an operator runs it, through the real launcher, with no database
 * configured: every command shares the one embedded database.
 */
class WorkerLauncherIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path home;
  private static Path flow;

  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;

      public class Slow implements Flow {
        public FlowHeader header() {
          return FlowHeader.named("slow").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          f.sh("sleep 8");
          String second = f.sh("echo second").path("stdout").asText().trim();
          return JsonNodeFactory.instance.objectNode().put("second", second);
        }
      }
      """;

  @BeforeAll
  static void setUp() throws IOException {
    home = Files.createTempDirectory("flows-home-worker-it");
    Path dir = Files.createTempDirectory("flows-flow-it");
    flow = Files.writeString(dir.resolve("slow.flow.java"), FLOW);
  }

  @AfterAll
  static void stop() throws Exception {
    flows("db", "stop");
    PgBinaries.deleteTree(home);
  }

  @Test
  void aDetachedRunCompletesThroughAWorkerInAnotherProcessOnTheOneEmbeddedDatabase()
      throws Exception {
    Process worker = start("worker");
    try {
      String run = detach();
      Launcher.Ran watch = flows("runs", "watch", run, "--json");
      assertThat(watch.exit()).as(watch.err()).isZero();
      JsonNode end = lastLine(watch.out());
      assertThat(end.path("run").path("status").asText()).isEqualTo("succeeded");
      assertThat(end.path("output").path("second").asText()).isEqualTo("second");
    } finally {
      worker.destroy();
      worker.waitFor(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void aWorkerStoppedWithSigtermMidRunLeavesNoLeaseAndAnotherWorkerFinishesTheRun()
      throws Exception {
    Process first = start("worker");
    String run;
    try {
      run = detach();
      awaitFirstChild(run);
    } finally {
      first.destroy(); // SIGTERM: stop claiming, drain within the stop grace, leave no lease
    }
    assertThat(first.waitFor(120, TimeUnit.SECONDS)).isTrue();
    JsonNode shown = flows("runs", "show", run, "--json").json();
    assertThat(runningSteps(shown.path("run"))).as("no step is left leased").isZero();
    assertThat(shown.path("run").path("status").asText()).isEqualTo("running");

    Process second = start("worker");
    try {
      Launcher.Ran watch = flows("runs", "watch", run, "--json");
      assertThat(watch.exit()).as(watch.err()).isZero();
      assertThat(lastLine(watch.out()).path("output").path("second").asText()).isEqualTo("second");
    } finally {
      second.destroy();
      second.waitFor(60, TimeUnit.SECONDS);
    }
  }

  private static String detach() throws Exception {
    Launcher.Ran r = flows("run", flow.toString(), "--detach", "--json");
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
