package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.mcp.testkit.Jvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shipping version 2 of a single-file flow under 20 runs of version 1 waiting on their signal,
 * through the CLI, with each phase's worker a process of its own: the check that names where the
 * new code diverges, the patch that makes it compatible, the move, and a worker given only the new
 * file finishing the old runs along their old path while a new run takes the new step.
 */
class DeployNewVersionEndToEndTest {
  private static final int RUNS = 20;
  private static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.time.Duration;

      public class Approval implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("approval").version("%s").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          f.step("load", () -> 1);
          %s
          f.awaitSignal("approve", Duration.ofHours(24));
          return JsonNodeFactory.instance.textNode("approved");
        }
      }
      """;

  private static TestDatabase.Fresh db;
  @TempDir static Path dir;
  private static Cli cli;

  @BeforeAll
  static void setUp() {
    db = TestDatabase.fresh("deploy_new_version_e2e");
    cli =
        new Cli(
            Map.of(
                "FLOWS_HOME", dir.resolve("home").toString(), "FLOWS_DATABASE_URL", db.jdbcUrl()),
            OpsConfig.defaults().withWatchPollInterval(Duration.ofMillis(200)));
  }

  /** {@code approval.flow.java} at {@code version} in a directory of its own. */
  private static Path write(String sub, String version, String insert) throws Exception {
    Path d = Files.createDirectories(dir.resolve(sub));
    return Files.writeString(d.resolve("approval.flow.java"), FLOW.formatted(version, insert));
  }

  /** {@code flows worker --flows DIR} in a JVM of its own on this test's class path. */
  private static Process worker(Path flows, String name) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
            Jvm.java(),
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-cp",
            System.getProperty("java.class.path"),
            FlowsCli.class.getName(),
            "worker",
            "--flows",
            flows.toString(),
            "--poll",
            "100ms");
    pb.environment().put("FLOWS_DATABASE_URL", db.jdbcUrl());
    pb.environment().put("FLOWS_HOME", dir.resolve("home-" + name).toString());
    pb.environment().remove("FLOWS_DEBUG");
    return pb.redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile()).start();
  }

  private static void stop(Process worker) throws Exception {
    assertThat(ProcessTree.stop(worker)).as("the worker drained and stopped").isZero();
  }

  private static JsonNode body(String run) {
    return cli.run("--json", "runs", "show", run).json().path("run").path("steps").get(0);
  }

  private static boolean suspended(JsonNode body) {
    return body.path("status").asText().equals("ready")
        && body.path("lastReason").asText().equals("suspended");
  }

  private static void awaitEach(List<String> runs, Predicate<String> done, String what)
      throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    for (String run : runs) {
      while (!done.test(run)) {
        assertThat(System.nanoTime())
            .as(() -> "run " + run + " " + what + ": " + cli.run("runs", "show", run).out())
            .isLessThan(until);
        Thread.sleep(100);
      }
    }
  }

  private static String status(String run) {
    return cli.run("--json", "runs", "show", run).json().path("run").path("status").asText();
  }

  /** The run as `runs show --json --full` answers it, as text: its memos name their steps. */
  private static String shown(String run) {
    return cli.run("--json", "runs", "show", run, "--full").json().toString();
  }

  private static String detach(Path flow) {
    Cli.Result r = cli.run("--json", "run", flow.toString(), "--detach");
    assertThat(r.exit()).as(r.err()).isZero();
    return r.jsonLines().getFirst().path("run").asText();
  }

  @Test
  void twentyWaitingRunsOfVersion1AreCheckedPatchedMovedAndFinishedByAWorkerWithOnlyVersion2()
      throws Exception {
    long began = System.nanoTime();
    Path v1 = write("v1", "1", "");
    Path v2 = write("v2", "2", "f.step(\"fraud-check\", () -> true);");
    Path patched =
        write(
            "patched",
            "2",
            "if (f.patched(\"fraud-check\")) { f.step(\"fraud-check\", () -> true); }");

    Process old = worker(v1.getParent(), "worker-v1");
    List<String> runs = new ArrayList<>();
    try {
      for (int i = 0; i < RUNS; i++) {
        runs.add(detach(v1));
      }
      awaitEach(runs, r -> suspended(body(r)), "waits on its signal under version 1");
    } finally {
      stop(old);
    }
    long started20 = System.nanoTime();

    Cli.Result diverging = cli.run("--json", "replay-check", v2.toString());
    assertThat(diverging.exit()).as(diverging.err()).isEqualTo(Exit.REFUSED);
    assertThat(diverging.json().path("runs")).hasSize(RUNS);
    for (JsonNode r : diverging.json().path("runs")) {
      assertThat(r.path("compatible").asBoolean()).isFalse();
      assertThat(r.path("position").asInt()).isEqualTo(2);
      assertThat(r.path("verdict").asText())
          .contains(
              "diverges at position 2: journal has f.awaitSignal(\"approve\"), code makes"
                  + " f.step(\"fraud-check\")");
    }
    Cli.Result compatible = cli.run("replay-check", patched.toString());
    assertThat(compatible.exit()).as(compatible.out()).isEqualTo(Exit.SUCCESS);
    assertThat(compatible.out())
        .contains(RUNS + " runs of flow approval: 20 compatible, 0 diverge");

    Cli.Result moved =
        cli.run("runs", "upgrade", "--flow", "approval", "--from", "1", "--to", patched.toString());
    assertThat(moved.exit()).as(moved.out() + moved.err()).isEqualTo(Exit.SUCCESS);
    assertThat(moved.out()).contains("upgraded " + RUNS + ", refused 0");

    long checkedAndMoved = System.nanoTime();
    Process fresh = worker(patched.getParent(), "worker-v2");
    try {
      for (String run : runs) {
        assertThat(cli.run("runs", "signal", run, "approve").exit()).isZero();
      }
      awaitEach(runs, r -> status(r).equals("succeeded"), "ends on the version 2 worker");
      for (String run : runs) {
        assertThat(shown(run)).contains("\"load\"").doesNotContain("fraud-check");
      }

      String started = detach(patched);
      awaitEach(List.of(started), r -> suspended(body(r)), "waits on its signal under version 2");
      cli.run("runs", "signal", started, "approve");
      awaitEach(List.of(started), r -> status(r).equals("succeeded"), "ends");
      assertThat(shown(started)).contains("fraud-check");
    } finally {
      stop(fresh);
    }
    long ended = System.nanoTime();
    System.out.printf(
        "deploy end to end: %d runs in %d ms (start and wait %d ms, check and move %d ms,"
            + " finish on version 2 %d ms)%n",
        RUNS,
        TimeUnit.NANOSECONDS.toMillis(ended - began),
        TimeUnit.NANOSECONDS.toMillis(started20 - began),
        TimeUnit.NANOSECONDS.toMillis(checkedAndMoved - started20),
        TimeUnit.NANOSECONDS.toMillis(ended - checkedAndMoved));
  }
}
