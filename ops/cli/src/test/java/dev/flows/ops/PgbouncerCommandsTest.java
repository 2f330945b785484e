package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.Pgbouncer;
import dev.flows.journalstore.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `flows` commands with --db naming Debian's pgbouncer in front of the test database. */
class PgbouncerCommandsTest {
  private static TestDatabase.Fresh db;
  private static Pgbouncer session;
  private static Pgbouncer transaction;
  @TempDir static Path dir;
  private static Cli cli;
  private static Path flow;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("bouncer_cli");
    session = Pgbouncer.start(db, Pgbouncer.Mode.SESSION);
    transaction = Pgbouncer.start(db, Pgbouncer.Mode.TRANSACTION);
    cli = new Cli(Map.of("FLOWS_HOME", dir.resolve("home").toString()));
    flow = FlowCommandsTest.greetWithTools(dir);
  }

  @AfterAll
  static void stop() {
    session.close();
    transaction.close();
  }

  @Test
  void inSessionModeAFlowWithAStepAndAnMcpCallRunsToSuccessAndTheRunsCommandsShowIt() {
    String url = session.jdbcUrl(db);
    Cli.Result r =
        cli.run("--db", url, "--json", "run", flow.toString(), "--input", "{\"who\":\"bob\"}");
    assertThat(r.exit()).as(r.err() + session.log()).isZero();
    List<JsonNode> lines = r.jsonLines();
    assertThat(lines.getLast().path("type").asText()).isEqualTo("run.end");
    assertThat(lines.getLast().path("output").path("said").asText()).isEqualTo("hi bob");
    String run = lines.getFirst().path("run").asText();

    Cli.Result listed = cli.run("--db", url, "--json", "runs", "list");
    assertThat(listed.exit()).as(listed.err()).isZero();
    assertThat(listed.json().path("runs").findValuesAsText("runId")).contains(run);
    Cli.Result shown = cli.run("--db", url, "--json", "runs", "show", run);
    assertThat(shown.exit()).as(shown.err()).isZero();
    assertThat(shown.json().path("run").path("status").asText()).isEqualTo("succeeded");
    Cli.Result watched = cli.run("--db", url, "--json", "runs", "watch", run);
    assertThat(watched.exit()).as(watched.err()).isZero();
  }

  /**
   * A body with more child runs than pgjdbc's threshold for preparing a statement on the server.
   */
  private static final String TREE =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import dev.flows.sdk.*;

      public class Tree implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("tree").version("1").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          for (int i = 0; i < 7; i++) {
            f.command("true").call();
          }
          return input;
        }
      }
      """;

  @Test
  void inTransactionModeTheShortCommandsThatNeitherListenNorPrepareAnswer() throws Exception {
    Path tree = Files.writeString(dir.resolve("tree.flow.java"), TREE);
    Cli.Result ran = cli.run("--db", db.jdbcUrl(), "--json", "run", tree.toString());
    assertThat(ran.exit()).as(ran.err()).isZero();
    String run = ran.jsonLines().getFirst().path("run").asText();
    String url = transaction.jdbcUrl(db);
    Cli.Result shown = cli.run("--db", url, "--json", "runs", "show", run);
    assertThat(shown.exit()).as(shown.err() + transaction.log()).isZero();
    assertThat(shown.json().path("run").path("children")).hasSize(7);
    Cli.Result listed = cli.run("--db", url, "--json", "runs", "list", "--all");
    assertThat(listed.exit()).as(listed.err()).isZero();
    assertThat(listed.json().path("runs").findValuesAsText("runId")).contains(run);
  }

  @Test
  void inTransactionModeACommandRefusesInOneConfigInvalidLineAndAdmitsNoRun() {
    int before = cli.run("--db", db.jdbcUrl(), "--json", "runs", "list").json().path("runs").size();
    Cli.Result r = cli.run("--db", transaction.jdbcUrl(db), "run", flow.toString(), "--detach");
    assertThat(r.exit()).isEqualTo(Exit.REFUSED);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.errLines().getFirst())
        .startsWith("error config_invalid: the database is reached through a connection pooler")
        .contains("(at jdbc:postgresql://127.0.0.1:" + transaction.port())
        .contains("fix: set pool_mode = session");
    assertThat(cli.run("--db", db.jdbcUrl(), "--json", "runs", "list").json().path("runs"))
        .hasSize(before);
  }
}
