package dev.flows.journalstore;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.lifecycle.TransitionLog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * The journal's connections: the pool (closed here when the journal opened it), and the two ways a
 * verb runs on it (see the package doc), each the one place its SQL failures are translated.
 */
final class JournalDb implements AutoCloseable {
  private final Jdbi jdbi;
  private final DataSource dataSource;
  private final Optional<HikariDataSource> ownedPool;
  // Empty: every statement judges leases, backoff and timestamps by the database clock.
  private final Optional<InstantSource> testClock;
  private final TransitionLog transitions = new TransitionLog();
  private final SessionCheck sessions;
  private final PayloadLimits limits;

  JournalDb(
      DataSource dataSource,
      Optional<HikariDataSource> ownedPool,
      Optional<InstantSource> testClock,
      SessionCheck sessions,
      PayloadLimits limits) {
    this.jdbi = Jdbi.create(dataSource);
    this.limits = limits;
    this.dataSource = dataSource;
    this.ownedPool = ownedPool;
    this.testClock = testClock;
    this.sessions = sessions;
  }

  /** The run and step transitions this journal has taken. */
  /** The payloads this journal takes: run inputs, signals, answers, resolved outputs. */
  PayloadLimits limits() {
    return limits;
  }

  TransitionLog transitions() {
    return transitions;
  }

  /**
   * The {@code :now} of every statement that judges leases, backoff or timestamps: the test clock's
   * instant (at Postgres' microsecond precision), or NULL for the database clock.
   */
  String clock() {
    return testClock.map(c -> c.instant().truncatedTo(ChronoUnit.MICROS).toString()).orElse(null);
  }

  /**
   * The journal's "now" for this transaction, read once: the test clock's when one is set, else the
   * database clock's. Also made the transaction's {@code flows.now}, which the trigger that wakes a
   * suspended parent reads.
   */
  Instant now(Handle h) {
    return h.createQuery(Sql.text("now"))
        .bind("now", clock())
        .map((rs, ctx) -> JournalRows.instant(rs, "now"))
        .one();
  }

  /** A verb of several statements: one transaction. */
  <T> T tx(HandleCallback<T, RuntimeException> body) {
    sessions.require();
    try {
      return jdbi.inTransaction(body);
    } catch (FlowsException e) {
      throw e;
    } catch (JdbiException e) {
      throw SqlErrors.translate(e);
    }
  }

  /** Sets a statement's parameters. */
  @FunctionalInterface
  interface Binder {
    void bind(PositionalSql sql, PreparedStatement ps) throws SQLException;
  }

  /** Reads the current row. */
  @FunctionalInterface
  interface RowReader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /** Handles one row of a result. */
  @FunctionalInterface
  interface RowConsumer {
    void accept(ResultSet rs) throws SQLException;
  }

  /** One statement in autocommit on a pooled connection, every row of its result handled. */
  void autocommitRows(PositionalSql sql, Binder binder, RowConsumer each) {
    sessions.require();
    try (Connection c = dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement ps = c.prepareStatement(sql.sql())) {
        binder.bind(sql, ps);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            each.accept(rs);
          }
        }
      }
    } catch (SQLException e) {
      throw SqlErrors.translate(e);
    }
  }

  /** One statement in autocommit that answers exactly one row. */
  <T> T autocommitRow(PositionalSql sql, Binder binder, RowReader<T> reader) {
    List<T> rows = new ArrayList<>(1);
    autocommitRows(sql, binder, rs -> rows.add(reader.read(rs)));
    if (rows.isEmpty()) {
      throw new IllegalStateException("no row from " + sql.sql());
    }
    return rows.getFirst();
  }

  /** HikariCP's count of threads waiting for a connection; 0 on a pool that is not HikariCP. */
  int waitingForConnection() {
    if (dataSource instanceof HikariDataSource pool) {
      HikariPoolMXBean gauge = pool.getHikariPoolMXBean();
      return gauge == null ? 0 : gauge.getThreadsAwaitingConnection();
    }
    return 0;
  }

  @Override
  public void close() {
    ownedPool.ifPresent(HikariDataSource::close);
  }
}
