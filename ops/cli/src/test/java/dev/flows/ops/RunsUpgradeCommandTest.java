package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flows runs upgrade}: runs of a single-file flow waiting on their signal, moved to an
 * edited file (refused where the edit diverges, moved with the edit behind a patch), then served
 * only by a process given the new file.
 */
class RunsUpgradeCommandTest {
  private static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.time.Duration;

      public class Approval implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("approval").build();
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

  /** Each follower its own thread: the common pool may have one, and a follower holds it. */
  private static final ExecutorService FOLLOWERS = Executors.newCachedThreadPool();

  @BeforeAll
  static void setUp() {
    db = TestDatabase.fresh("runs_upgrade_cli");
    cli =
        new Cli(
            Map.of(
                "FLOWS_HOME", dir.resolve("home").toString(), "FLOWS_DATABASE_URL", db.jdbcUrl()),
            OpsConfig.defaults().withWatchPollInterval(Duration.ofMillis(200)));
  }

  private static Path write(String sub, String insert) throws Exception {
    Path d = Files.createDirectories(dir.resolve(sub));
    return Files.writeString(d.resolve("approval.flow.java"), FLOW.formatted(insert));
  }

  private record Started(String run, CompletableFuture<Cli.Result> follow) {}

  /** Starts {@code flow} and runs it in the background until its body waits. */
  private static Started start(Path flow) throws Exception {
    String key = "k-" + UUID.randomUUID();
    Cli.Result r = cli.run("--json", "run", flow.toString(), "--key", key, "--detach");
    assertThat(r.exit()).as(r.err()).isZero();
    String run = r.jsonLines().getFirst().path("run").asText();
    CompletableFuture<Cli.Result> follow =
        CompletableFuture.supplyAsync(
            () -> cli.run("run", flow.toString(), "--key", key), FOLLOWERS);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      if (suspended(body(run))) {
        return new Started(run, follow);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the body of " + run + " never suspended");
  }

  private static JsonNode body(String run) {
    return cli.run("--json", "runs", "show", run).json().path("run").path("steps").get(0);
  }

  private static boolean suspended(JsonNode body) {
    return body.path("status").asText().equals("ready")
        && body.path("lastReason").asText().equals("suspended");
  }

  /** The run as `runs show --json --full` answers it, as text: its memos name their steps. */
  private static String shown(String run) {
    return cli.run("--json", "runs", "show", run, "--full").json().toString();
  }

  private static List<String> types(String run) {
    List<String> types = new ArrayList<>();
    cli.run("--json", "runs", "show", run, "--full")
        .json()
        .path("run")
        .path("timeline")
        .forEach(e -> types.add(e.path("type").asText()));
    return types;
  }

  @Test
  void aRunIsRefusedWhereTheNewCodeDivergesAndMovedWithItBehindAPatchThenServedByItsNewCode()
      throws Exception {
    Path v1 = write("v1", "");
    Path v2 = write("v2", "f.step(\"fraud-check\", () -> true);");
    Path patched =
        write(
            "patched", "if (f.patched(\"fraud-check\")) { f.step(\"fraud-check\", () -> true); }");
    List<Started> runs = List.of(start(v1), start(v1));
    String first = runs.getFirst().run();

    Cli.Result refused = cli.run("--json", "runs", "upgrade", first, "--to", v2.toString());
    assertThat(refused.exit()).as(refused.err()).isEqualTo(Exit.REFUSED);
    JsonNode r = refused.json().path("runs").get(0);
    assertThat(r.path("code").asText()).isEqualTo("replay_incompatible");
    assertThat(r.path("position").asInt()).isEqualTo(2);
    assertThat(r.path("message").asText())
        .contains(
            "diverges at position 2: journal has f.awaitSignal(\"approve\"), code makes"
                + " f.step(\"fraud-check\")");
    assertThat(refused.json().path("summary").asText()).isEqualTo("upgraded 0, refused 1");
    assertThat(types(first)).doesNotContain("run.upgraded");

    Cli.Result moved =
        cli.run("runs", "upgrade", "--flow", "approval", "--from", "1", "--to", patched.toString());
    assertThat(moved.exit()).as(moved.err()).isEqualTo(Exit.SUCCESS);
    assertThat(moved.out())
        .contains(first + "  upgraded to version 1")
        .contains("upgraded 2, refused 0");
    for (Started s : runs) {
      assertThat(types(s.run())).contains("run.upgraded");
      cli.run("runs", "signal", s.run(), "approve");
    }
    // The processes following the runs were given the old file only: nobody serves the new one.
    Thread.sleep(1_500);
    for (Started s : runs) {
      JsonNode body = body(s.run());
      assertThat(body.path("status").asText()).isEqualTo("ready");
      assertThat(s.follow()).isNotDone();
    }

    String key = "k-" + UUID.randomUUID();
    CompletableFuture<Cli.Result> fresh =
        CompletableFuture.supplyAsync(
            () -> cli.run("--json", "run", patched.toString(), "--key", key), FOLLOWERS);
    for (Started s : runs) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!s.follow().isDone() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(s.follow().isDone())
          .as(
              () ->
                  "the upgraded run ends: "
                      + cli.run("runs", "show", s.run(), "--full").out()
                      + cli.run("runs", "list").out())
          .isTrue();
      assertThat(s.follow().get().exit()).isZero();
      assertThat(shown(s.run())).contains("\"load\"").doesNotContain("fraud-check");
    }
    // The new run of the patched file waits on its signal after taking the new step.
    String started =
        cli.run("--json", "runs", "list", "--flow", "approval", "--status", "running")
            .json()
            .path("runs")
            .get(0)
            .path("runId")
            .asText();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!suspended(body(started))) {
      assertThat(System.nanoTime()).as("the new run waits on its signal").isLessThan(until);
      Thread.sleep(100);
    }
    cli.run("runs", "signal", started, "approve");
    assertThat(fresh.get(60, TimeUnit.SECONDS).exit()).isZero();
    assertThat(shown(started)).contains("fraud-check");
  }
}
