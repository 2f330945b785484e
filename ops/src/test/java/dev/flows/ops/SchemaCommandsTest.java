package dev.flows.ops;

import static dev.flows.ops.Refusals.assertJsonRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A database that is not migrated: every command that needs the schema is refused {@code
 * migration_pending} until {@code flows db migrate}; then the read-only role script gives a login
 * the views and nothing else.
 */
class SchemaCommandsTest {
  private static String url;
  private static Path home;
  private static Cli cli;

  @BeforeAll
  static void emptyDatabase() throws Exception {
    TestDatabase.Fresh server = TestDatabase.fresh("schema_cli");
    String name = "flows_empty_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(server.jdbcUrl());
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    }
    url = withDatabase(server.jdbcUrl(), name);
    home = Files.createTempDirectory("flows-home");
    cli = new Cli(Map.of(Session.HOME_VARIABLE, home.toString(), DatabaseTarget.URL_VARIABLE, url));
  }

  @AfterAll
  static void cleanUp() {
    PgBinaries.deleteTree(home);
  }

  @Test
  void aSchemaBehindIsRefusedUntilMigratedThenTheReadOnlyRoleSeesOnlyViews() throws Exception {
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

    String role = "reader_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute(Files.readString(script()));
      st.execute(Files.readString(script()));
      st.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'pw' IN ROLE flows_reader");
    }
    String readerUrl = withUser(url, role);
    try (Connection c = DriverManager.getConnection(readerUrl);
        Statement st = c.createStatement()) {
      st.executeQuery("SELECT count(*) FROM flows.runs_overview").close();
      st.executeQuery("SELECT count(*) FROM flows.step_attempts").close();
      st.executeQuery("SELECT count(*) FROM flows.effects").close();
      assertThatThrownBy(() -> st.executeQuery("SELECT count(*) FROM flows.runs"))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
      assertThatThrownBy(() -> st.execute("DELETE FROM flows.journal_entries WHERE false"))
          .isInstanceOf(SQLException.class);
    }
    Cli.Result asReader = cli.run("runs", "list", "--json", "--db", readerUrl);
    assertThat(asReader.exit()).as(asReader.err()).isZero();
  }

  private static Path script() {
    Path p = Path.of("sql/readonly-role.sql");
    return Files.exists(p) ? p : Path.of("ops/sql/readonly-role.sql");
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
