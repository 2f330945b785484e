package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.mcp.testkit.NoProcessLeftBehind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ./flows} end to end, as a user runs it: the launcher at the repository root, the shaded
 * jar, a fresh FLOWS_HOME and no database configured. Runs after {@code package} (failsafe), so the
 * jar is current and the launcher is told not to rebuild.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(NoProcessLeftBehind.class)
class FlowsLauncherIT {
  private static Path home;

  @BeforeAll
  static void freshHome() throws IOException {
    home = Files.createTempDirectory("flows-home-it");
  }

  @AfterAll
  static void stop() throws Exception {
    flows("db", "stop");
    PgBinaries.deleteTree(home);
  }

  @Test
  @Order(1)
  void versionNamesTheBuildAndTheEmbeddedPostgres() throws Exception {
    Launcher.Ran r = flows("--version");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).startsWith("flows ").contains("PostgreSQL 17");
  }

  @Test
  @Order(2)
  void theFirstCommandStartsTheEmbeddedDatabaseAndSaysWhereInOneLine() throws Exception {
    Launcher.Ran r = flows("runs", "list", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.json().path("runs").isArray()).isTrue();
    assertThat(r.errLines())
        .singleElement()
        .asString()
        .contains("started the embedded PostgreSQL")
        .contains(home.resolve("pg").toString());
    Launcher.Ran again = flows("runs", "list");
    assertThat(again.exit()).isZero();
    assertThat(again.err()).as("the running server is found, not started again").isEmpty();
    assertThat(again.out()).contains("no runs");
  }

  @Test
  @Order(3)
  void refusalsAreOneLineWithACodeAndTheirExitCode() throws Exception {
    Launcher.Ran unknown = flows("runs", "show", "run_nope", "--json");
    assertThat(unknown.exit()).isEqualTo(Exit.REFUSED);
    assertThat(unknown.errLines()).singleElement().asString().startsWith("error run_not_found: ");
    assertThat(unknown.json().path("error").path("code").asText()).isEqualTo("run_not_found");

    Launcher.Ran unreachable = flows("runs", "list", "--db", "postgres://u:p@127.0.0.1:1/flows");
    assertThat(unreachable.exit()).isEqualTo(Exit.FAILED);
    assertThat(unreachable.errLines())
        .singleElement()
        .asString()
        .startsWith("error database_unavailable: ");

    Launcher.Ran bogus = flows("bogus");
    assertThat(bogus.exit()).isEqualTo(Exit.REFUSED);
    assertThat(bogus.errLines()).singleElement().asString().startsWith("error invalid_input: ");
    for (Launcher.Ran r : List.of(unknown, unreachable, bogus)) {
      assertThat(r.err()).doesNotContain("\tat ");
    }
  }

  @Test
  @Order(4)
  void dbStopStopsTheServerAndStatusSaysSo() throws Exception {
    Launcher.Ran stop = flows("db", "stop", "--json");
    assertThat(stop.exit()).isZero();
    assertThat(stop.json().path("stopped").asBoolean()).isTrue();
    Launcher.Ran status = flows("db", "status", "--json");
    assertThat(status.json().path("database").path("running").asBoolean()).isFalse();
    assertThat(status.json().path("database").path("initialized").asBoolean()).isTrue();
  }

  @Test
  @Order(5)
  void aServerThatCannotStartIsOneRefusalLineAndTheMcpSdksWarningGoesToTheLog() throws Exception {
    Path dir = Files.createTempDirectory("flows-spawn-it");
    Files.writeString(
        dir.resolve("flows.json"), "{\"mcp\": {\"gone\": {\"command\": \"/nonexistent/server\"}}}");
    Path flow =
        Files.writeString(
            dir.resolve("gone.flow.java"), FlowCommandsTest.FLOW.replace("\"tools\"", "\"gone\""));

    Launcher.Ran r = flows("check", flow.toString());

    assertThat(r.exit()).isEqualTo(Exit.REFUSED);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.errLines().getFirst())
        .startsWith("error mcp_unreachable: ")
        .contains("spawn_failed");
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("WARN");
    assertThat(Files.readString(home.resolve(CliLog.FILE)))
        .contains("io.modelcontextprotocol")
        .contains("Client failed during connect");
    PgBinaries.deleteTree(dir);
  }

  private static Launcher.Ran flows(String... args) throws Exception {
    return new Launcher(home).run(args);
  }
}
