package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.migrations.Migrations;
import dev.flows.migrations.SchemaCheck;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The one-query schema check says "current" exactly when Flyway finds nothing pending. */
class SchemaCheckTest {
  @Test
  void aDatabaseNeverMigratedIsNotCurrentAndOnceMigratedItIs() throws SQLException {
    DataSource ds = TestDatabase.empty("schema_check").dataSource();
    assertThat(current(ds)).isFalse();

    Migrations.of(ds).migrate();

    assertThat(Migrations.of(ds).pending()).isEmpty();
    assertThat(current(ds)).isTrue();
  }

  @Test
  void functionsLastAppliedWithAnotherTextAreNotCurrent() throws SQLException {
    DataSource ds = TestDatabase.fresh("schema_check_functions").dataSource();
    assertThat(current(ds)).isTrue();

    execute(
        ds, "UPDATE flows.flyway_schema_history SET checksum = checksum + 1 WHERE version IS NULL");

    assertThat(Migrations.of(ds).pending()).containsExactly("journal functions (repeatable)");
    assertThat(current(ds)).isFalse();
  }

  @Test
  void aVersionOfThisBuildMissingFromTheHistoryIsNotCurrent() throws SQLException {
    DataSource ds = TestDatabase.fresh("schema_check_versions").dataSource();

    execute(
        ds,
        "DELETE FROM flows.flyway_schema_history WHERE installed_rank ="
            + " (SELECT max(installed_rank) FROM flows.flyway_schema_history"
            + " WHERE version IS NOT NULL)");

    assertThat(current(ds)).isFalse();
  }

  @Test
  void aFailedMigrationDoesNotCount() throws SQLException {
    DataSource ds = TestDatabase.fresh("schema_check_failed").dataSource();

    execute(
        ds,
        "UPDATE flows.flyway_schema_history SET success = false WHERE installed_rank ="
            + " (SELECT max(installed_rank) FROM flows.flyway_schema_history"
            + " WHERE version IS NOT NULL)");

    assertThat(current(ds)).isFalse();
  }

  private static boolean current(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection()) {
      return SchemaCheck.current(c);
    }
  }

  private static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
