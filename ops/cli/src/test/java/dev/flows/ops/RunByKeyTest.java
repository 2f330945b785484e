package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flows run --key} finds its ended run before compiling, preflighting or serving. */
class RunByKeyTest {
  @TempDir Path dir;

  @Test
  void aKeyedRunThatEndedIsFoundWithoutPreflightingItsServers() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("run_by_key");
    Cli cli = new Cli(Map.of("FLOWS_HOME", dir.resolve("home").toString()));
    Path flow = FlowCommandsTest.greetWithTools(dir);
    String[] run = {
      "--db",
      db.jdbcUrl(),
      "--json",
      "run",
      flow.toString(),
      "--input",
      "{\"who\":\"ada\"}",
      "--key",
      "k1"
    };
    Cli.Result first = cli.run(run);
    assertThat(first.exit()).as(first.err()).isZero();
    String id = first.jsonLines().getFirst().path("run").asText();
    // The server is gone now: a preflight would refuse mcp_unreachable.
    Files.writeString(
        dir.resolve("flows.json"), "{\"mcp\": {\"tools\": {\"command\": \"/nonexistent/tools\"}}}");

    Cli.Result again = cli.run(run);

    assertThat(again.exit()).as(again.err()).isZero();
    List<JsonNode> lines = again.jsonLines();
    assertThat(lines.getFirst().path("type").asText()).isEqualTo("run.started");
    assertThat(lines.getFirst().path("run").asText()).isEqualTo(id);
    assertThat(lines.getFirst().path("created").asBoolean()).isFalse();
    assertThat(lines.getLast().path("type").asText()).isEqualTo("run.end");
    assertThat(lines.getLast().path("run").path("status").asText()).isEqualTo("succeeded");
    assertThat(lines.getLast().path("output").path("said").asText()).isEqualTo("hi ada");
  }

  @Test
  void theSameKeyWithAnotherInputIsStillRefusedAsAConflict() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("run_by_key_conflict");
    Cli cli = new Cli(Map.of("FLOWS_HOME", dir.resolve("home").toString()));
    Path flow = FlowCommandsTest.greetWithTools(dir);
    Cli.Result first =
        cli.run(
            "--db",
            db.jdbcUrl(),
            "run",
            flow.toString(),
            "--input",
            "{\"who\":\"ada\"}",
            "--key",
            "k2");
    assertThat(first.exit()).as(first.err()).isZero();

    Cli.Result other =
        cli.run(
            "--db",
            db.jdbcUrl(),
            "run",
            flow.toString(),
            "--input",
            "{\"who\":\"bob\"}",
            "--key",
            "k2");

    assertThat(other.exit()).isEqualTo(Exit.REFUSED);
    assertThat(other.err()).contains("error run_admission_conflict");
  }
}
