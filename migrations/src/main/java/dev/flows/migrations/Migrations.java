package dev.flows.migrations;

import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;

/**
 * Applies the Flyway migrations of schema {@code flows} (classpath {@code db/migration}). The
 * schema and Flyway's history table live in {@code flows}, so one database can hold other schemas
 * beside it. Versioned migrations ({@code V<n>__*.sql}) hold the schema and are never edited once
 * applied; every function lives in the one repeatable migration {@code R__journal_functions.sql},
 * which Flyway applies after the versioned ones and again whenever its text changes.
 */
public final class Migrations {
  /** The schema every flows table, type and view lives in. */
  public static final String SCHEMA = "flows";

  private static final String LOCATION = "classpath:db/migration";

  private final Flyway flyway;

  private Migrations(Flyway flyway) {
    this.flyway = flyway;
  }

  public static Migrations of(DataSource dataSource) {
    return new Migrations(
        Flyway.configure()
            .dataSource(dataSource)
            .schemas(SCHEMA)
            .defaultSchema(SCHEMA)
            .locations(LOCATION)
            .load());
  }

  /** Applies every pending migration; answers how many were applied. */
  public int migrate() {
    return flyway.migrate().migrationsExecuted;
  }

  /**
   * Migrations this build has that the database has not applied, oldest first (e.g. {@code "1 flows
   * schema"}, and {@code "journal functions (repeatable)"} while the database's functions differ
   * from this build's); a non-empty answer means the schema is older than this build.
   */
  public List<String> pending() {
    return Arrays.stream(flyway.info().pending()).map(Migrations::describe).toList();
  }

  private static String describe(MigrationInfo m) {
    return m.getVersion() == null
        ? m.getDescription() + " (repeatable)"
        : m.getVersion() + " " + m.getDescription();
  }
}
