package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** A reachable database: where it is and how to connect. */
final class Database {
  /** A unit of JDBC work. */
  @FunctionalInterface
  interface Work<T> {
    T apply(Connection c) throws SQLException;
  }

  private final DatabaseTarget target;
  private final String jdbcUrl;
  private final Optional<String> user;
  private final Optional<String> password;
  private final DataSource dataSource;

  private Database(
      DatabaseTarget target,
      String jdbcUrl,
      Optional<String> user,
      Optional<String> password,
      OpsConfig config) {
    this.target = target;
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl);
    user.ifPresent(ds::setUser);
    password.ifPresent(ds::setPassword);
    int seconds = (int) Math.max(1, config.connectTimeout().toSeconds());
    ds.setConnectTimeout(seconds);
    ds.setLoginTimeout(seconds);
    ds.setApplicationName("flows-cli");
    this.dataSource = ds;
  }

  /**
   * Connects to {@code target}, starting the embedded server first when that is the target and it
   * is not running ({@code notice} gets the one line saying so).
   */
  static Database open(DatabaseTarget target, OpsConfig config, Consumer<String> notice) {
    Database db =
        switch (target) {
          case DatabaseTarget.External e ->
              new Database(target, e.jdbcUrl(), e.user(), e.password(), config);
          case DatabaseTarget.Embedded e -> {
            EmbeddedServer.Running r =
                new EmbeddedServer(e.flowsHome(), config).ensureRunning(notice);
            yield new Database(
                target,
                r.jdbcUrl(),
                Optional.of(EmbeddedServer.USER),
                Optional.of(r.password()),
                config);
          }
        };
    db.withConnection(c -> c.isValid((int) Math.max(1, config.connectTimeout().toSeconds())));
    return db;
  }

  DatabaseTarget target() {
    return target;
  }

  boolean embedded() {
    return target instanceof DatabaseTarget.Embedded;
  }

  String jdbcUrl() {
    return jdbcUrl;
  }

  Optional<String> user() {
    return user;
  }

  Optional<String> password() {
    return password;
  }

  DataSource dataSource() {
    return dataSource;
  }

  <T> T withConnection(Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      return work.apply(c);
    } catch (SQLException e) {
      throw translate(e, target.describe());
    }
  }

  /** A failure to reach the server is {@code database_unavailable}; any other refusal an error. */
  static FlowsException translate(SQLException e, String where) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    boolean unreachable =
        state.startsWith("08")
            || state.startsWith("28")
            || state.equals("3D000")
            || state.startsWith("57P")
            || causedBy(e, ConnectException.class)
            || causedBy(e, UnknownHostException.class);
    String message = oneLine(e.getMessage());
    if (unreachable) {
      return new FlowsException(
          ErrorCode.DATABASE_UNAVAILABLE,
          "cannot reach the database: " + message,
          where,
          "check --db / FLOWS_DATABASE_URL (host, port, database, user, password) and that the"
              + " server is up; without either, flows uses its embedded database",
          true,
          e);
    }
    return new FlowsException(
        ErrorCode.DATABASE_ERROR,
        "the database refused a statement: "
            + message
            + (state.isEmpty() ? "" : " [" + state + "]"),
        where,
        "",
        false,
        e);
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s*\\R\\s*", " ").strip();
  }
}
