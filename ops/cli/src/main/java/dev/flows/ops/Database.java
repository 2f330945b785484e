package dev.flows.ops;

import dev.flows.journalstore.SqlErrors;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.Secrets;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A reachable database: where it is and how to connect. A command's own statements ({@link
 * #withConnection}, {@link #commandConnection}) share one connection, opened when the database is
 * and closed with it: a short command pays for one login, not one per statement.
 */
final class Database implements AutoCloseable {
  /** A unit of JDBC work. */
  @FunctionalInterface
  interface Work<T> {
    T apply(Connection c) throws SQLException;
  }

  private final DatabaseTarget target;
  private final Supplier<String> jdbcUrl;
  private final Optional<String> user;
  private final Optional<String> password;
  private final Following dataSource;
  private final DataSource commandConnection = new Held();
  private Connection held; // the command's connection; null when none is open

  private Database(
      DatabaseTarget target,
      Supplier<String> jdbcUrl,
      Optional<String> user,
      Optional<String> password,
      OpsConfig config) {
    this.target = target;
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
    this.dataSource = new Following(jdbcUrl, user, password, config);
  }

  /**
   * Connects to {@code target}, starting the embedded server first when that is the target and it
   * is not running ({@code notice} gets the one line saying so).
   */
  static Database open(DatabaseTarget target, OpsConfig config, Consumer<String> notice) {
    Database db =
        switch (target) {
          case DatabaseTarget.External e ->
              new Database(target, e::jdbcUrl, e.user(), e.password(), config);
          case DatabaseTarget.Embedded e -> {
            EmbeddedServer server = new EmbeddedServer(e.flowsHome(), config);
            EmbeddedServer.Running r = server.ensureRunning(notice);
            // Where server.json says the server is now: it may come back on another port.
            Supplier<String> url =
                () -> EmbeddedServer.jdbcUrl(server.recordedPort().orElse(r.port()));
            yield new Database(
                target, url, Optional.of(EmbeddedServer.USER), Optional.of(r.password()), config);
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

  /** The URL to connect to now, with any password in it (never print it: {@link #shownUrl}). */
  String jdbcUrl() {
    return jdbcUrl.get();
  }

  /** The URL for humans and JSON: its password masked. */
  String shownUrl() {
    return Secrets.redact(jdbcUrl());
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

  /**
   * Runs {@code work} on the command's connection (opened again when it was closed or broke: a
   * server that restarted is reached where it is now).
   */
  <T> T withConnection(Work<T> work) {
    try (Connection c = commandConnection.getConnection()) {
      return work.apply(c);
    } catch (SQLException e) {
      throw translate(e, target.describe());
    }
  }

  /**
   * The command's connection as a data source: each {@code getConnection} hands out the same open
   * connection, whose {@code close} leaves it open. For one thread's statements, one at a time.
   */
  DataSource commandConnection() {
    return commandConnection;
  }

  /** Closes the command's connection (the next statement opens it again). */
  @Override
  public synchronized void close() {
    if (held != null) {
      try {
        held.close();
      } catch (SQLException e) {
        // A connection that broke: nothing more to release.
      }
      held = null;
    }
  }

  private synchronized Connection held() throws SQLException {
    if (held == null || held.isClosed()) {
      held = dataSource.getConnection();
      // Statements are not prepared on the server: a short command repeats few of them, and so
      // its one connection also works through a pooler in transaction mode (no LISTEN either).
      held.unwrap(PGConnection.class).setPrepareThreshold(0);
    }
    if (!held.getAutoCommit()) {
      // What a statement left open is not carried into the next one's.
      held.rollback();
      held.setAutoCommit(true);
    }
    return held;
  }

  /** Hands out {@link #held}, behind a proxy whose {@code close} keeps it open. */
  private final class Held extends Source {
    @Override
    public int getLoginTimeout() {
      return dataSource.getLoginTimeout();
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection c = held();
      return (Connection)
          java.lang.reflect.Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                switch (method.getName()) {
                  case "close" -> {
                    return null;
                  }
                  case "isClosed" -> {
                    return c.isClosed();
                  }
                  default -> {
                    try {
                      return method.invoke(c, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                      throw e.getCause();
                    }
                  }
                }
              });
    }

    @Override
    public Connection getConnection(String u, String p) throws SQLException {
      return getConnection();
    }
  }

  /**
   * Opens each connection at the URL of that moment, so a pool over it follows a server that moved
   * (the embedded one restarted on another port) instead of retrying the old address for ever.
   */
  private static final class Following extends Source {
    private final Supplier<String> url;
    private final Optional<String> user;
    private final Optional<String> password;
    private final int timeoutSeconds;

    Following(
        Supplier<String> url, Optional<String> user, Optional<String> password, OpsConfig config) {
      this.url = url;
      this.user = user;
      this.password = password;
      this.timeoutSeconds = (int) Math.max(1, config.connectTimeout().toSeconds());
    }

    private PGSimpleDataSource now() {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setURL(url.get());
      user.ifPresent(ds::setUser);
      password.ifPresent(ds::setPassword);
      ds.setConnectTimeout(timeoutSeconds);
      ds.setLoginTimeout(timeoutSeconds);
      ds.setApplicationName("flows-cli");
      return ds;
    }

    @Override
    public Connection getConnection() throws SQLException {
      return now().getConnection();
    }

    @Override
    public Connection getConnection(String u, String p) throws SQLException {
      return now().getConnection(u, p);
    }

    @Override
    public int getLoginTimeout() {
      return timeoutSeconds;
    }
  }

  /** What a data source of this class answers besides its connections. */
  private abstract static class Source implements DataSource {
    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
      // Connections are made fresh each time: there is no writer to keep.
    }

    @Override
    public void setLoginTimeout(int seconds) {
      // The connect timeout comes from OpsConfig.
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException("no parent logger");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      if (type.isInstance(this)) {
        return type.cast(this);
      }
      throw new SQLException("not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return type.isInstance(this);
    }
  }

  /**
   * A refused login is {@code database_auth_failed}; a failure to reach the server, or a passing
   * fault of it ({@link SqlErrors#serverFault}), {@code database_unavailable}; any other refusal an
   * error.
   */
  static FlowsException translate(SQLException e, String where) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (SqlErrors.authFailure(e)) {
      return SqlErrors.authFailed(e, where);
    }
    if (SqlErrors.serverFault(e).isPresent()) {
      // Slots taken, a full disk, a timeout: the journal's words and fix for the same fault.
      FlowsException fault = SqlErrors.translate(e);
      return new FlowsException(
          fault.code(), fault.getMessage(), where, fault.fix().orElse(""), true, e);
    }
    boolean unreachable =
        state.startsWith("08")
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
