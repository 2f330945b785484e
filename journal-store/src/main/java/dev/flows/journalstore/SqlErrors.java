package dev.flows.journalstore;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import java.util.Set;

/**
 * The one place where database failures become {@link FlowsException}s: a lost or refused
 * connection is {@code database_unavailable} (retryable); anything else the database refuses is
 * {@code database_error} (retryable only for serialization failures and deadlocks). Public for the
 * embedding API, whose schema check meets the same failures.
 */
public final class SqlErrors {
  /** SQLSTATEs outside class 08 that still mean "the server is not there for us right now". */
  private static final Set<String> UNAVAILABLE =
      Set.of("57P01", "57P02", "57P03", "53300", "53000");

  private static final Set<String> RETRYABLE_ERRORS = Set.of("40001", "40P01");

  // HikariCP's proxy of a connection it already closed (e.g. after 57P01) throws this without a
  // SQLSTATE; a fresh connection from the pool is the cure.
  private static final String POOL_CLOSED_CONNECTION = "Connection is closed";

  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  private SqlErrors() {}

  public static FlowsException translate(Exception e) {
    Optional<SQLException> sql = sqlCause(e);
    String state = sql.map(SQLException::getSQLState).orElse("");
    String message = sql.map(SQLException::getMessage).orElse(String.valueOf(e.getMessage()));
    boolean connection =
        sql.filter(
                s ->
                    s instanceof SQLTransientConnectionException
                        || s instanceof SQLNonTransientConnectionException)
            .isPresent();
    boolean poolClosed =
        sql.filter(s -> s.getSQLState() == null && POOL_CLOSED_CONNECTION.equals(s.getMessage()))
            .isPresent();
    if (connection
        || poolClosed
        || (state != null && (state.startsWith("08") || UNAVAILABLE.contains(state)))) {
      return new FlowsException(
          ErrorCode.DATABASE_UNAVAILABLE,
          "database unavailable: " + message,
          "sqlstate " + state,
          "check that Postgres is up and reachable; the call may be retried",
          true,
          e);
    }
    return new FlowsException(
        ErrorCode.DATABASE_ERROR,
        "database refused the statement: " + message,
        "sqlstate " + state,
        INSUFFICIENT_PRIVILEGE.equals(state)
            ? "this database role may not write (a read-only role such as flows_reader only"
                + " inspects); connect as a role that may write schema flows"
            : "",
        RETRYABLE_ERRORS.contains(state),
        e);
  }

  private static Optional<SQLException> sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
