package dev.flows.ops;

import static dev.flows.ops.Refusals.assertJsonRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepKind;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A database that is not migrated: every command that needs the schema is refused {@code
 * migration_pending} until {@code flows db migrate}; then the read-only role script gives a login
 * every table and view to read, and no write.
 */
class SchemaCommandsTest {
  private static String url;
  private static Path home;
  private static Cli cli;

  private static TestDatabase.Fresh server;

  @BeforeAll
  static void emptyDatabase() throws Exception {
    server = TestDatabase.fresh("schema_cli");
    url = newDatabase();
    home = Files.createTempDirectory("flows-home");
    cli = new Cli(Map.of(Session.HOME_VARIABLE, home.toString(), DatabaseTarget.URL_VARIABLE, url));
  }

  private static String newDatabase() throws SQLException {
    String name = "flows_empty_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(server.jdbcUrl());
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    }
    return withDatabase(server.jdbcUrl(), name);
  }

  @AfterAll
  static void cleanUp() {
    PgBinaries.deleteTree(home);
  }

  @Test
  void aSchemaBehindIsRefusedUntilMigratedThenTheReadOnlyRoleReadsButCannotWrite()
      throws Exception {
    assertJsonRefused(cli.run("runs", "list", "--json"), "migration_pending", Exit.REFUSED);
    assertJsonRefused(cli.run("runs", "show", "r1", "--json"), "migration_pending", Exit.REFUSED);

    Cli.Result status = cli.run("db", "status", "--json");
    assertThat(status.exit()).isZero();
    JsonNode d = status.json().path("database");
    assertThat(d.path("kind").asText()).isEqualTo("external");
    assertThat(d.path("schemaCurrent").asBoolean()).isFalse();
    assertThat(d.path("pendingMigrations")).isNotEmpty();

    Cli.Result migrate = cli.run("db", "migrate", "--json");
    assertThat(migrate.exit()).as(migrate.err()).isZero();
    assertThat(migrate.json().path("applied").asInt()).isPositive();
    assertThat(migrate.json().path("database").path("schemaCurrent").asBoolean()).isTrue();
    assertThat(cli.run("db", "migrate", "--json").json().path("applied").asInt()).isZero();

    Cli.Result list = cli.run("runs", "list", "--json");
    assertThat(list.exit()).as(list.err()).isZero();
    assertThat(list.json().path("runs").isArray()).isTrue();

    String readerUrl = readerLogin(url);
    try (Connection c = DriverManager.getConnection(readerUrl);
        Statement st = c.createStatement()) {
      st.executeQuery("SELECT count(*) FROM flows.runs_overview").close();
      st.executeQuery("SELECT count(*) FROM flows.step_attempts").close();
      st.executeQuery("SELECT count(*) FROM flows.effects").close();
      for (String write :
          List.of(
              "DELETE FROM flows.journal_entries WHERE false",
              "UPDATE flows.runs SET name = name WHERE false",
              "INSERT INTO flows.run_transitions SELECT * FROM flows.run_transitions WHERE false",
              "TRUNCATE flows.steps")) {
        assertThatThrownBy(() -> st.execute(write))
            .as(write)
            .isInstanceOfSatisfying(
                SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
      }
    }
    Cli.Result asReader = cli.run("runs", "list", "--json", "--db", readerUrl);
    assertThat(asReader.exit()).as(asReader.err()).isZero();
  }

  @Test
  void everyReadOnlyCommandWorksWithALoginInTheReaderRoleAndAWriteIsRefusedWithACode()
      throws SQLException {
    String url = newDatabase();
    Cli cli = SchemaCommandsTest.cli.with(DatabaseTarget.URL_VARIABLE, url);
    assertThat(cli.run("db", "migrate").exit()).isZero();
    RunRef done;
    RunRef open;
    try (PostgresJournal journal =
        PostgresJournal.connect(JournalStoreConfig.forUrl(url).withPoolSize(2))) {
      done =
          journal
              .admit(StartRun.of("done-" + UUID.randomUUID(), oneStep("done")), Admit.queued())
              .runId();
      for (ClaimedAttempt a :
          journal.claim(
              new ClaimRequest(
                  new WorkerId("w"), Set.of(StepKind.DETERMINISTIC), 10, Duration.ofSeconds(30)))) {
        journal.complete(a.lease(), new StepOutcome.Succeeded(JsonNodeFactory.instance.nullNode()));
      }
      open =
          journal
              .admit(StartRun.of("open-" + UUID.randomUUID(), oneStep("open")), Admit.queued())
              .runId();
    }
    String readerUrl = readerLogin(url);

    for (String[] command :
        List.of(
            new String[] {"runs", "list"},
            new String[] {"runs", "list", "--all", "--json"},
            new String[] {"runs", "show", done.value()},
            new String[] {"runs", "show", open.value(), "--json"},
            new String[] {"runs", "watch", done.value()},
            new String[] {"db", "status"},
            new String[] {"db", "status", "--json"})) {
      Cli.Result r = cli.run(with(command, "--db", readerUrl));
      assertThat(r.exit()).as(String.join(" ", command) + ": " + r.err()).isZero();
      assertThat(r.err()).doesNotContain("permission denied");
    }
    Cli.Result shown = cli.run("runs", "show", done.value(), "--json", "--db", readerUrl);
    assertThat(shown.json().path("run").path("status").asText()).isEqualTo("succeeded");

    for (String[] write :
        List.of(
            new String[] {"runs", "cancel", open.value()},
            new String[] {"runs", "resume", open.value()})) {
      Cli.Result r = cli.run(with(write, "--db", readerUrl));
      assertThat(r.exit()).as(r.err()).isEqualTo(Exit.FAILED);
      assertThat(r.errLines()).hasSize(1);
      assertThat(r.errLines().getFirst())
          .startsWith("error database_error: ")
          .contains("permission denied")
          .contains(" fix: ");
      assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
    }
    assertThat(
            cli.run("runs", "show", open.value(), "--json")
                .json()
                .path("run")
                .path("status")
                .asText())
        .isEqualTo("running");
  }

  private static RunSpec oneStep(String name) {
    return Specs.named(name, Specs.command("a", "true"));
  }

  private static String[] with(String[] command, String... more) {
    String[] all = java.util.Arrays.copyOf(command, command.length + more.length);
    System.arraycopy(more, 0, all, command.length, more.length);
    return all;
  }

  /** Runs the role script (twice: it is idempotent) and answers the URL of a new reader login. */
  private static String readerLogin(String url) {
    String role = "reader_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute(Files.readString(script()));
      st.execute(Files.readString(script()));
      st.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'pw' IN ROLE flows_reader");
    } catch (SQLException | java.io.IOException e) {
      throw new AssertionError(e);
    }
    return withUser(url, role);
  }

  private static Path script() {
    return Launcher.repoRoot().resolve("ops/sql/readonly-role.sql");
  }

  private static String withDatabase(String jdbcUrl, String database) {
    URI u = URI.create(jdbcUrl.substring("jdbc:".length()));
    String query = u.getRawQuery() == null ? "" : "?" + u.getRawQuery();
    return "jdbc:" + u.getScheme() + "://" + u.getRawAuthority() + "/" + database + query;
  }

  private static String withUser(String jdbcUrl, String user) {
    URI u = URI.create(jdbcUrl.substring("jdbc:".length()));
    return "jdbc:"
        + u.getScheme()
        + "://"
        + u.getRawAuthority()
        + u.getRawPath()
        + "?user="
        + user
        + "&password=pw";
  }
}
