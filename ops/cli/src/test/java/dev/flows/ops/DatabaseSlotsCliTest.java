package dev.flows.ops;

import static dev.flows.ops.Refusals.assertJsonRefused;
import static dev.flows.ops.Refusals.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.migrations.Migrations;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CLI command against a server whose every connection slot is taken, on a cluster of its own (a
 * low {@code max_connections} would starve other tests): one line with the code and the fix, exit
 * 1, no stack trace; the same command works once a slot frees.
 */
class DatabaseSlotsCliTest {
  @Test
  void runsListAgainstAServerWithEveryConnectionSlotTakenEndsInOneLineWithTheCodeAndItsFix(
      @TempDir Path home) throws SQLException, java.io.IOException {
    try (EmbeddedPostgres server =
        EmbeddedPostgres.builder()
            .setServerConfig("fsync", "off")
            .setServerConfig("max_connections", "6")
            .setServerConfig("superuser_reserved_connections", "0")
            .start()) {
      String url = server.getJdbcUrl("postgres", "postgres");
      Migrations.of(server.getPostgresDatabase()).migrate();
      Cli cli =
          new Cli(Map.of(Session.HOME_VARIABLE, home.toString(), DatabaseTarget.URL_VARIABLE, url));
      List<Connection> hog = new ArrayList<>();
      try {
        while (true) {
          try {
            hog.add(DriverManager.getConnection(url));
          } catch (SQLException e) {
            assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("53300");
            break;
          }
        }
        Cli.Result r = cli.run("runs", "list");
        assertRefused(r, "database_unavailable", Exit.FAILED);
        assertThat(r.err()).contains("too many clients", "max_connections", "retried", "(at jdbc:");
        assertJsonRefused(cli.run("runs", "list", "--json"), "database_unavailable", Exit.FAILED);
      } finally {
        for (Connection c : hog) {
          c.close();
        }
      }
      Cli.Result after = cli.run("runs", "list");
      assertThat(after.exit()).as(after.err()).isZero();
    }
  }
}
