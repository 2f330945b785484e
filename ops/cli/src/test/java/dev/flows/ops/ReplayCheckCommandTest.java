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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flows replay-check}: runs of a single-file flow waiting on their signal, checked against
 * an edited file (a step inserted before the wait) without and with a patch.
 */
class ReplayCheckCommandTest {
  private static final String V1 =
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

  @BeforeAll
  static void setUp() {
    db = TestDatabase.fresh("replay_check_cli");
    cli =
        new Cli(
            Map.of(
                "FLOWS_HOME", dir.resolve("home").toString(), "FLOWS_DATABASE_URL", db.jdbcUrl()),
            OpsConfig.defaults().withWatchPollInterval(Duration.ofMillis(200)));
  }

  private static Path write(String sub, String insert) throws Exception {
    Path d = Files.createDirectories(dir.resolve(sub));
    return Files.writeString(d.resolve("approval.flow.java"), V1.formatted(insert));
  }

  private record Started(String run, CompletableFuture<Cli.Result> follow) {}

  /** Starts {@code flow} and runs it in the background until its body waits. */
  private static Started start(Path flow) throws Exception {
    String key = "k-" + UUID.randomUUID();
    Cli.Result r = cli.run("--json", "run", flow.toString(), "--key", key, "--detach");
    assertThat(r.exit()).as(r.err()).isZero();
    String run = r.jsonLines().getFirst().path("run").asText();
    CompletableFuture<Cli.Result> follow =
        CompletableFuture.supplyAsync(() -> cli.run("run", flow.toString(), "--key", key));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      JsonNode body =
          cli.run("--json", "runs", "show", run).json().path("run").path("steps").get(0);
      if (body.path("status").asText().equals("ready")
          && body.path("lastReason").asText().equals("suspended")) {
        return new Started(run, follow);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the body of " + run + " never suspended");
  }

  @Test
  void waitingRunsDivergeWhereTheEditInsertsAStepAndAreCompatibleWithItBehindAPatch()
      throws Exception {
    Path v1 = write("v1", "");
    Path v2 = write("v2", "f.step(\"fraud-check\", () -> true);");
    Path patched =
        write(
            "patched", "if (f.patched(\"fraud-check\")) { f.step(\"fraud-check\", () -> true); }");
    List<Started> runs = new ArrayList<>();
    try {
      runs.add(start(v1));
      runs.add(start(v1));

      Cli.Result changed = cli.run("--json", "replay-check", v2.toString());
      Cli.Result human = cli.run("replay-check", v2.toString());
      Cli.Result fine = cli.run("--json", "replay-check", patched.toString(), "--runs", "all");
      Cli.Result one =
          cli.run("--json", "replay-check", v2.toString(), "--runs", runs.getFirst().run());

      assertThat(changed.exit()).as(changed.err()).isEqualTo(Exit.REFUSED);
      JsonNode report = changed.json();
      assertThat(report.path("compatible").asBoolean()).isFalse();
      assertThat(report.path("summary").asText())
          .isEqualTo("2 runs of flow approval: 0 compatible, 2 diverge");
      assertThat(report.path("runs")).hasSize(2);
      for (JsonNode r : report.path("runs")) {
        assertThat(r.path("position").asInt()).isEqualTo(2);
        assertThat(r.path("verdict").asText())
            .isEqualTo(
                "diverges at position 2: journal has f.awaitSignal(\"approve\"), code makes"
                    + " f.step(\"fraud-check\")");
      }
      assertThat(human.out())
          .contains(runs.getFirst().run() + "  diverges at position 2")
          .contains("2 runs of flow approval: 0 compatible, 2 diverge");
      assertThat(fine.exit()).as(fine.err()).isEqualTo(Exit.SUCCESS);
      assertThat(fine.json().path("summary").asText())
          .isEqualTo("2 runs of flow approval: 2 compatible, 0 diverge");
      assertThat(one.json().path("runs")).hasSize(1);
    } finally {
      for (Started s : runs) {
        cli.run("runs", "signal", s.run(), "approve");
      }
    }
    for (Started s : runs) {
      assertThat(s.follow().get(60, TimeUnit.SECONDS).exit()).isZero();
    }
  }
}
