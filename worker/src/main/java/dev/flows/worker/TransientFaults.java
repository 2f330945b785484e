package dev.flows.worker;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.Secrets;
import java.net.ConnectException;
import java.net.SocketException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The one place that decides whether a database fault is worth retrying unchanged: the server or
 * the network went away for a moment (connection refused or reset, SQLSTATE class 08, a pooled
 * connection found closed, admin shutdown 57P01/57P02, starting up 57P03), the server asked us to
 * retry (serialization failure 40001, deadlock 40P01) or was full (too many connections 53300).
 * Everything else, including every journal refusal ({@code lease_conflict}, {@code run_terminal},
 * ...), fails fast with its code.
 */
public final class TransientFaults {
  private static final Set<String> TRANSIENT_SQLSTATES =
      Set.of("57P01", "57P02", "57P03", "40001", "40P01", "53300");
  private static final String CONNECTION_EXCEPTION_CLASS = "08";
  // HikariCP's proxy of a connection it already closed (e.g. after 57P01) throws this without a
  // SQLSTATE; a fresh connection from the pool is the cure.
  private static final String POOL_CLOSED_CONNECTION = "Connection is closed";

  private TransientFaults() {}

  public static boolean isTransient(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, true) == null; t = t.getCause()) {
      if (t instanceof FlowsException fe) {
        if (fe.code() == ErrorCode.DATABASE_UNAVAILABLE) {
          return true;
        }
        if (fe.code() != ErrorCode.DATABASE_ERROR) {
          // A refusal is the journal's answer, not a fault: retrying cannot change it.
          return false;
        }
      } else if (t instanceof SQLException se && isTransientSql(se)) {
        return true;
      } else if (t instanceof ConnectException || t instanceof SocketException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Logs a failure a loop is about to retry: a transient fault as one line (the database being away
   * for a while is news, its stack trace is not), anything else with its stack trace.
   */
  public static void log(Logger log, String what, RuntimeException e) {
    if (isTransient(e)) {
      log.warn("{}: {}", what, describe(e));
    } else {
      log.error(what, e);
    }
  }

  /**
   * One line for a fault, secrets masked: the driver's own words when there are some (the deepest
   * {@link SQLException}, e.g. "Connection to localhost:5432 refused"), else the deepest message.
   */
  public static String describe(Throwable failure) {
    String sql = null;
    String deepest = null;
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, true) == null; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && !m.isBlank()) {
        deepest = m;
        if (t instanceof SQLException) {
          sql = m;
        }
      }
    }
    String chosen = sql != null ? sql : deepest != null ? deepest : String.valueOf(failure);
    return Secrets.redact(chosen.replaceAll("\\s*\\R\\s*", " ").strip());
  }

  private static boolean isTransientSql(SQLException e) {
    if (e instanceof SQLTransientConnectionException) {
      return true;
    }
    String state = e.getSQLState();
    if (state == null) {
      return POOL_CLOSED_CONNECTION.equals(e.getMessage());
    }
    return (state.startsWith(CONNECTION_EXCEPTION_CLASS) || TRANSIENT_SQLSTATES.contains(state));
  }
}
