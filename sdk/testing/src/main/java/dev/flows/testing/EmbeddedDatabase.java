package dev.flows.testing;

import dev.flows.migrations.Migrations;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One embedded PostgreSQL per JVM (zonky, started at the first environment that asks), and a fresh,
 * migrated database per environment, dropped when it closes.
 */
final class EmbeddedDatabase {
  private EmbeddedDatabase() {}

  /** A database of its own: its URL (user and password in it) and name. */
  record Fresh(String name, String jdbcUrl) {
    DataSource dataSource() {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setURL(jdbcUrl);
      return ds;
    }
  }

  private static final class Holder {
    static final EmbeddedPostgres SERVER = start();
  }

  private static EmbeddedPostgres start() {
    try {
      // Throwaway test data: durability off keeps tests fast.
      return EmbeddedPostgres.builder()
          .setServerConfig("fsync", "off")
          .setServerConfig("synchronous_commit", "off")
          .setServerConfig("full_page_writes", "off")
          .setServerConfig("max_connections", "300")
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("the embedded PostgreSQL of the test kit did not start", e);
    }
  }

  static Fresh fresh() {
    String name = "flows_kit_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    execute("CREATE DATABASE " + name);
    Fresh db = new Fresh(name, Holder.SERVER.getJdbcUrl("postgres", name));
    Migrations.of(db.dataSource()).migrate();
    return db;
  }

  static void drop(Fresh db) {
    execute("DROP DATABASE IF EXISTS " + db.name() + " WITH (FORCE)");
  }

  private static void execute(String sql) {
    try (Connection c =
            DriverManager.getConnection(Holder.SERVER.getJdbcUrl("postgres", "postgres"));
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "test kit database: " + sql + " failed: " + e.getMessage(), e);
    }
  }
}
