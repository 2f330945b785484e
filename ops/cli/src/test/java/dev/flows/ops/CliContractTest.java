package dev.flows.ops;

import static dev.flows.ops.Refusals.assertJsonRefused;
import static dev.flows.ops.Refusals.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The error contract of the command line itself, with no working database needed. */
class CliContractTest {
  private static final String UNREACHABLE = "postgres://flows:secret@127.0.0.1:1/flows";

  @TempDir Path home;

  private Cli cli() {
    return new Cli(Map.of(Session.HOME_VARIABLE, home.toString()));
  }

  @Test
  void withoutFlowsHomeTheHomeVariableNamesWhereTheEmbeddedDatabaseLives(@TempDir Path userHome) {
    Cli.Result r = new Cli(Map.of("HOME", userHome.toString())).run("db", "status", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(Path.of(r.json().path("database").path("dataDir").asText()))
        .isEqualTo(userHome.resolve(".flows/pg/data"));
  }

  @Test
  void flowsHomeWinsOverTheHomeVariable(@TempDir Path userHome) {
    Cli.Result r = cli().with("HOME", userHome.toString()).run("db", "status", "--json");
    assertThat(Path.of(r.json().path("database").path("dataDir").asText()))
        .isEqualTo(home.resolve("pg/data"));
  }

  @Test
  void noSubcommandIsRefusedInOneLine() {
    assertRefused(cli().run(), "invalid_input", Exit.REFUSED);
  }

  @Test
  void anUnknownSubcommandIsRefusedAsJsonToo() {
    assertJsonRefused(cli().run("db", "bogus", "--json"), "invalid_input", Exit.REFUSED);
  }

  @Test
  void anUnknownOptionIsRefusedWhereverJsonIsGiven() {
    assertJsonRefused(cli().run("--json", "db", "status", "--nope"), "invalid_input", 2);
  }

  @Test
  void anUnreachableDatabaseFromTheOptionEndsInOneLineAndExitOne() {
    Cli.Result r = cli().run("db", "status", "--db", UNREACHABLE, "--json");
    assertJsonRefused(r, "database_unavailable", Exit.FAILED);
    assertThat(r.json().path("error").path("retryable").asBoolean()).isTrue();
    assertThat(r.err()).as("the password never appears").doesNotContain("secret");
  }

  @Test
  void anUnreachableDatabaseFromTheEnvironmentIsRefusedTheSameWay() {
    Cli.Result r = cli().with(DatabaseTarget.URL_VARIABLE, UNREACHABLE).run("db", "start");
    assertRefused(r, "database_unavailable", Exit.FAILED);
  }

  @Test
  void theOptionWinsOverTheEnvironment() {
    Cli.Result r =
        cli()
            .with(DatabaseTarget.URL_VARIABLE, "jdbc:postgresql://127.0.0.1:1/from_env")
            .run("--db", "jdbc:postgresql://127.0.0.1:1/from_option", "db", "status");
    assertRefused(r, "database_unavailable", Exit.FAILED);
    assertThat(r.err()).contains("from_option").doesNotContain("from_env");
  }

  @Test
  void aMalformedDatabaseUrlIsRefusedBeforeConnecting() {
    Cli.Result r = cli().run("db", "status", "--db", "mysql://localhost/x", "--json");
    assertJsonRefused(r, "invalid_input", Exit.REFUSED);
    assertThat(r.json().path("error").path("place").asText()).isEqualTo("--db");
  }

  @Test
  void stoppingAnExternalDatabaseIsRefused() {
    assertRefused(cli().run("db", "stop", "--db", UNREACHABLE), "invalid_input", Exit.REFUSED);
  }

  @Test
  void debugPrintsTheStackTraceThatIsOtherwiseHidden() {
    Cli.Result r = cli().run("db", "status", "--db", UNREACHABLE, "--debug");
    assertThat(r.exit()).isEqualTo(Exit.FAILED);
    assertThat(r.err()).startsWith("error database_unavailable: ").contains("\tat ");
    Cli.Result viaEnv =
        cli().with(Session.DEBUG_VARIABLE, "1").run("db", "status", "--db", UNREACHABLE);
    assertThat(viaEnv.err()).contains("\tat ");
  }

  @Test
  void helpAndVersionSucceed() {
    Cli.Result help = cli().run("--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out()).contains("db");
    Cli.Result version = cli().run("--version");
    assertThat(version.exit()).isZero();
    assertThat(version.out()).startsWith("flows ").contains("PostgreSQL 17");
  }
}
