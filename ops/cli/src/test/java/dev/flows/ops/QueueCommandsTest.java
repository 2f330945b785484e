package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A flow's queue through the CLI: its run is stored, listed and run in that queue. */
class QueueCommandsTest {
  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import dev.flows.sdk.*;

      public class Refund implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("refund").queue("payments").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          return f.shell("pwd").call();
        }
      }
      """;

  private static TestDatabase.Fresh db;
  @TempDir static Path dir;
  private static Cli cli;
  private static Path flowDir;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("queue_cli");
    cli = new Cli(Map.of(Session.HOME_VARIABLE, dir.resolve("home").toString()));
    flowDir = Files.createDirectories(dir.resolve("flows dir"));
    Files.writeString(flowDir.resolve("refund.flow.java"), FLOW);
  }

  @Test
  void aRunOfAQueuedFlowRunsInItsFilesDirectoryAndIsListedUnderItsQueueOnly() throws Exception {
    Cli.Result r =
        cli.run(
            "--db", db.jdbcUrl(), "--json", "run", flowDir.resolve("refund.flow.java").toString());
    assertThat(r.exit()).as(r.err()).isZero();
    List<JsonNode> lines = r.jsonLines();
    String run = lines.getFirst().path("run").asText();
    JsonNode end = lines.getLast();
    assertThat(end.path("run").path("queue").asText()).isEqualTo("payments");
    assertThat(end.path("output").path("stdout").asText())
        .as("f.sh ran in the flow file's directory, not the command's")
        .isEqualTo(flowDir.toRealPath() + "\n");

    JsonNode payments =
        cli.run("--db", db.jdbcUrl(), "--json", "runs", "list", "--queue", "payments").json();
    assertThat(payments.path("runs"))
        .singleElement()
        .satisfies(
            x -> {
              assertThat(x.path("runId").asText()).isEqualTo(run);
              assertThat(x.path("queue").asText()).isEqualTo("payments");
            });
    JsonNode all =
        cli.run("--db", db.jdbcUrl(), "--json", "runs", "list", "--all", "--queue", "payments")
            .json();
    assertThat(all.path("runs")).as("the f.sh child is in its root's queue").hasSize(2);
    assertThat(
            cli.run("--db", db.jdbcUrl(), "--json", "runs", "list", "--queue", "default")
                .json()
                .path("runs"))
        .isEmpty();
    Cli.Result shown = cli.run("--db", db.jdbcUrl(), "runs", "show", run);
    assertThat(shown.out()).contains("queue payments");
  }
}
