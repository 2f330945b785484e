package dev.flows.journalstore;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Whether each of the journal's connections keeps one server session, which LISTEN/NOTIFY and
 * pgjdbc's server-side prepared statements need. A pooler in transaction mode (pgbouncer {@code
 * pool_mode = transaction}) hands a connection's next transaction to whichever server session is
 * free, so the LISTEN holds on a session the listener no longer reads, and a prepared statement is
 * missing on the next session ("prepared statement S_1 does not exist"). The journal refuses such a
 * URL when the listener connects, before any verb runs, and every verb while the listener's last
 * connect found it so.
 *
 * <p>The test: while a second connection holds a transaction, the listening connection's backend
 * pid must not change and must not be the second connection's. With a session per connection both
 * hold by construction. Through a transaction pooler the session the listener just released is the
 * one the second connection gets (pgbouncer reuses idle server connections last in, first out), so
 * one of the two fails; a few rounds cover another client releasing a session in between.
 */
final class SessionCheck {
  static final int ROUNDS = 3;

  private final String url;
  private volatile boolean transactionPooled;

  SessionCheck(String jdbcUrl) {
    // Only scheme, host and database are named: the query string may carry a password.
    int q = jdbcUrl.indexOf('?');
    this.url = q < 0 ? jdbcUrl : jdbcUrl.substring(0, q);
  }

  /**
   * Tests {@code listening} against {@code other} (each in autocommit on entry, left so) and
   * remembers the answer: true when the two are not each a session of their own.
   */
  boolean judge(Connection listening, Connection other) throws SQLException {
    boolean pooled = false;
    for (int round = 0; round < ROUNDS && !pooled; round++) {
      long before = pid(listening);
      other.setAutoCommit(false);
      try {
        long held = pid(other);
        long after = pid(listening);
        pooled = held == before || after != before;
      } finally {
        other.rollback();
        other.setAutoCommit(true);
      }
    }
    transactionPooled = pooled;
    return pooled;
  }

  /** Throws the refusal when the listener's last connect found transaction pooling. */
  void require() {
    if (transactionPooled) {
      throw refusal();
    }
  }

  boolean transactionPooled() {
    return transactionPooled;
  }

  FlowsException refusal() {
    return new FlowsException(
        ErrorCode.CONFIG_INVALID,
        "the database is reached through a connection pooler in transaction mode (one connection's"
            + " transactions ran on different server sessions): LISTEN/NOTIFY and prepared"
            + " statements need a session per connection",
        url,
        "set pool_mode = session for this database in pgbouncer, or connect to Postgres directly");
  }

  private static long pid(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(Sql.text("backend_pid"))) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
