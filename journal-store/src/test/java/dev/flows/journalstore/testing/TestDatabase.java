package dev.flows.journalstore.testing;

import dev.flows.migrations.Migrations;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * One Postgres server per test JVM, and a fresh, migrated database per caller (typically per test
 * class). The server is, in order: {@code FLOWS_TEST_DATABASE_URL} when set (its user needs
 * CREATEDB); a Testcontainers Postgres when a Docker engine answers; otherwise an embedded
 * PostgreSQL 17 (zonky), which copes with running as root by itself.
 *
 * <p>Fresh databases are {@code CREATE DATABASE ... TEMPLATE} copies of one template migrated once
 * per JVM: much faster than migrating each one.
 */
public final class TestDatabase {
  /** Environment variable naming an existing server to use instead of starting one. */
  public static final String URL_VARIABLE = "FLOWS_TEST_DATABASE_URL";

  private static final String CONTAINER_IMAGE = "postgres:17-alpine";
  private static final AtomicInteger COUNTER = new AtomicInteger();
  // Per JVM, so test JVMs sharing one external server never collide.
  private static final String PREFIX =
      "flows_t" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

  /** A migrated database of its own: connect with {@link #jdbcUrl()} or {@link #dataSource()}. */
  public record Fresh(String name, String jdbcUrl) {
    public DataSource dataSource() {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setURL(jdbcUrl);
      return ds;
    }
  }

  private record Server(String kind, String adminUrl, String template) {}

  private TestDatabase() {}

  /** A new database, migrated to this build's schema. {@code label} only helps reading logs. */
  public static Fresh fresh(String label) {
    Server s = Holder.SERVER;
    String name =
        PREFIX + "_" + COUNTER.incrementAndGet() + "_" + sanitize(label).toLowerCase(Locale.ROOT);
    execute(s.adminUrl(), "CREATE DATABASE " + name + " TEMPLATE " + s.template());
    return new Fresh(name, withDatabase(s.adminUrl(), name));
  }

  /** A new database with no flows schema at all (for migration tests). */
  public static Fresh empty(String label) {
    Server s = Holder.SERVER;
    String name =
        PREFIX + "_" + COUNTER.incrementAndGet() + "_" + sanitize(label).toLowerCase(Locale.ROOT);
    execute(s.adminUrl(), "CREATE DATABASE " + name);
    return new Fresh(name, withDatabase(s.adminUrl(), name));
  }

  /** Which server this JVM uses: {@code url}, {@code testcontainers} or {@code embedded}. */
  public static String serverKind() {
    return Holder.SERVER.kind();
  }

  /** Lazily started once per JVM; class initialization makes it thread-safe. */
  private static final class Holder {
    static final Server SERVER = start();
  }

  private static Server start() {
    String kind;
    String adminUrl;
    String external = System.getenv(URL_VARIABLE);
    if (external != null && !external.isBlank()) {
      kind = "url";
      adminUrl = external;
    } else if (dockerAnswers()) {
      kind = "testcontainers";
      PostgreSQLContainer c = new PostgreSQLContainer(CONTAINER_IMAGE);
      c.start();
      Runtime.getRuntime().addShutdownHook(new Thread(c::stop));
      adminUrl = c.getJdbcUrl() + "?user=" + c.getUsername() + "&password=" + c.getPassword();
    } else {
      kind = "embedded";
      adminUrl = embedded();
    }
    String template = PREFIX + "_template";
    execute(adminUrl, "CREATE DATABASE " + template);
    Migrations.of(dataSource(withDatabase(adminUrl, template))).migrate();
    if (!kind.equals("embedded")) {
      // An external or container server outlives nothing of ours: drop what we made on the way out.
      String url = adminUrl;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> dropOwnDatabases(url)));
    }
    return new Server(kind, adminUrl, template);
  }

  private static boolean dockerAnswers() {
    try {
      return Containers.dockerAnswers();
    } catch (RuntimeException | NoClassDefFoundError e) {
      // A module that reuses this class without Testcontainers on its test classpath.
      return false;
    }
  }

  /** Kept apart so that Testcontainers classes load only when Docker is asked about. */
  private static final class Containers {
    static boolean dockerAnswers() {
      return DockerClientFactory.instance().isDockerAvailable();
    }

    static String start() {
      PostgreSQLContainer c = new PostgreSQLContainer(CONTAINER_IMAGE);
      c.start();
      Runtime.getRuntime().addShutdownHook(new Thread(c::stop));
      return c.getJdbcUrl() + "?user=" + c.getUsername() + "&password=" + c.getPassword();
    }
  }

  private static String embedded() {
    try {
      // Durability is irrelevant for throwaway test data; fsync off keeps the suite fast.
      EmbeddedPostgres pg =
          EmbeddedPostgres.builder()
              .setServerConfig("fsync", "off")
              .setServerConfig("synchronous_commit", "off")
              .setServerConfig("full_page_writes", "off")
              .setServerConfig("max_connections", "300")
              .start();
      return pg.getJdbcUrl("postgres", "postgres");
    } catch (IOException e) {
      throw new UncheckedIOException("embedded Postgres did not start", e);
    }
  }

  private static void dropOwnDatabases(String adminUrl) {
    try (Connection c = DriverManager.getConnection(adminUrl);
        Statement st = c.createStatement();
        var rs =
            st.executeQuery(
                "SELECT datname FROM pg_database WHERE datname LIKE '" + PREFIX + "%'")) {
      var names = new java.util.ArrayList<String>();
      while (rs.next()) {
        names.add(rs.getString(1));
      }
      for (String n : names) {
        try (Statement drop = c.createStatement()) {
          drop.execute("DROP DATABASE IF EXISTS " + n + " WITH (FORCE)");
        }
      }
    } catch (SQLException e) {
      // Best effort at JVM exit: a leftover test database is harmless.
    }
  }

  private static DataSource dataSource(String url) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    return ds;
  }

  private static void execute(String url, String sql) {
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("test database: " + sql + " failed: " + e.getMessage(), e);
    }
  }

  /** The same server URL with another database name (query parameters such as user kept). */
  static String withDatabase(String jdbcUrl, String database) {
    URI u = URI.create(jdbcUrl.substring("jdbc:".length()));
    String query = u.getRawQuery() == null ? "" : "?" + u.getRawQuery();
    String authority = u.getRawAuthority() == null ? "" : u.getRawAuthority();
    return "jdbc:" + u.getScheme() + "://" + authority + "/" + database + query;
  }

  private static String sanitize(String label) {
    String s = label.replaceAll("[^A-Za-z0-9_]", "_");
    return s.length() > 30 ? s.substring(s.length() - 30) : s;
  }
}
