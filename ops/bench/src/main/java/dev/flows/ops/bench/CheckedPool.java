package dev.flows.ops.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The pool {@link PostgresJournal#connect} opens (same settings), on connections that count the
 * liveness checks HikariCP makes before lending a connection that sat idle (over 500 ms): the
 * driver makes each one an empty query, which Postgres runs as a transaction of its own and counts
 * in {@code xact_commit}. How many there are depends on timing (which connection a borrower gets,
 * and how long it idled), not on the calls a run makes, so the commit count leaves them out.
 */
final class CheckedPool implements AutoCloseable {
  private final LongAdder checks = new LongAdder();
  private final HikariDataSource pool;
  final PostgresJournal journal;

  CheckedPool(JournalStoreConfig config) {
    PGSimpleDataSource driver = new PGSimpleDataSource();
    driver.setURL(config.jdbcUrl());
    config.user().ifPresent(driver::setUser);
    config.password().ifPresent(driver::setPassword);
    HikariConfig h = PostgresJournal.poolConfig(config);
    h.setJdbcUrl(null);
    h.setUsername(null);
    h.setPassword(null);
    h.setDataSource(new Counting(driver, checks));
    this.pool = new HikariDataSource(h);
    this.journal = PostgresJournal.using(pool, config);
  }

  /** Liveness checks made so far. */
  long checks() {
    return checks.sum();
  }

  @Override
  public void close() {
    journal.close();
    pool.close();
  }

  /** Hands out the driver's connections, each counting its {@code isValid} calls. */
  private record Counting(DataSource driver, LongAdder checks) implements DataSource {
    @Override
    public Connection getConnection() throws SQLException {
      return counted(driver.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return counted(driver.getConnection(user, password));
    }

    private Connection counted(Connection c) {
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                if (method.getName().equals("isValid")) {
                  checks.increment();
                }
                try {
                  return method.invoke(c, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return driver.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      driver.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      driver.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return driver.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      return driver.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      return driver.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
      return driver.isWrapperFor(iface);
    }
  }
}
