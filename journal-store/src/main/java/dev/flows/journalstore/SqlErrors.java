package dev.flows.journalstore;

import com.zaxxer.hikari.SQLExceptionOverride;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The one place where database failures become {@link FlowsException}s: a lost or refused
 * connection is {@code database_unavailable} (retryable); so is a server that takes no writes (a
 * standby, or a primary being demoted during a failover), whose connection the pool also drops
 * ({@link #POOL_EVICTION}) so that a retry connects afresh and a multi-host URL finds the primary;
 * anything else the database refuses is {@code database_error} (retryable only for serialization
 * failures and deadlocks). Public for the embedding API, whose schema check meets the same
 * failures.
 */
public final class SqlErrors {
  private static final String RETRY = "; nothing of the call was written and it may be retried";

  private static final String TERMINATED =
      "the server ended the connection (an administrator, a restart or a failover); the pool"
          + " opens a new one"
          + RETRY;

  private static final String SHORT_OF_RESOURCES =
      "the server is short of memory or another resource; check its log" + RETRY;

  /**
   * SQLSTATEs outside class 08 that still mean "the server is not there for us right now", each
   * with what to do about it: the fault passes (a connection slot or disk space frees, a lock is
   * released), so the worker's loops retry them and a caller is told to retry.
   */
  private static final Map<String, String> UNAVAILABLE =
      Map.of(
          "57P01", TERMINATED,
          "57P02", TERMINATED,
          "57P03", "the server is starting up or shutting down" + RETRY,
          "53000", SHORT_OF_RESOURCES,
          "53100",
              "the database's disk is full: free space on the server's data volume (or grow it)"
                  + RETRY,
          "53200", SHORT_OF_RESOURCES,
          "53300",
              "every connection slot of the server is taken: close idle clients, raise the"
                  + " server's max_connections or lower the pools' sizes"
                  + RETRY,
          "53400", SHORT_OF_RESOURCES,
          "57014",
              "the statement ran past statement_timeout (or was canceled), e.g. waiting for a lock"
                  + " another session holds: end that session, or raise statement_timeout for"
                  + " this role"
                  + RETRY);

  private static final Set<String> RETRYABLE_ERRORS = Set.of("40001", "40P01");

  // HikariCP's proxy of a connection it already closed (e.g. after 57P01) throws this without a
  // SQLSTATE; a fresh connection from the pool is the cure.
  private static final String POOL_CLOSED_CONNECTION = "Connection is closed";

  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  // read_only_sql_transaction: a standby, or a server whose writes are switched off.
  private static final String READ_ONLY = "25006";

  // Postgres' words for the same refusal, for a driver or proxy that passes no SQLSTATE on.
  private static final java.util.regex.Pattern READ_ONLY_MESSAGE =
      java.util.regex.Pattern.compile("cannot execute .* in a read-only transaction");

  /**
   * HikariCP's rule for a failed connection: one that met a server taking no writes is closed,
   * never handed out again (HikariCP keeps connections after SQLSTATEs outside its own list, and a
   * connection stays on the server it opened to); anything else is left to HikariCP's own list.
   */
  public static final SQLExceptionOverride POOL_EVICTION =
      new SQLExceptionOverride() {
        // Qualified: SQLExceptionOverride declares a type named Override too.
        @java.lang.Override
        public Override adjudicate(SQLException e) {
          return readOnly(e) ? Override.MUST_EVICT : Override.CONTINUE_EVICT;
        }
      };

  private SqlErrors() {}

  /** Whether {@code e} (or a cause) is the server refusing a write because it takes none. */
  public static boolean readOnly(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s
          && (READ_ONLY.equals(s.getSQLState())
              || (s.getMessage() != null && READ_ONLY_MESSAGE.matcher(s.getMessage()).find()))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code e} (or a cause) is the server refusing the login (SQLSTATE class 28: a wrong
   * password {@code 28P01}, a role or {@code pg_hba.conf} that lets no one in {@code 28000}).
   */
  public static boolean authFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s
          && s.getSQLState() != null
          && s.getSQLState().startsWith("28")) {
        return true;
      }
    }
    return false;
  }

  /** The refusal of a login: not retryable, since the same credentials meet the same answer. */
  public static FlowsException authFailed(Throwable e, String where) {
    SQLException login =
        sqlCauses(e)
            .filter(s -> s.getSQLState() != null && s.getSQLState().startsWith("28"))
            .findFirst()
            .orElseThrow();
    return new FlowsException(
        ErrorCode.DATABASE_AUTH_FAILED,
        "the database refused the login: "
            + String.valueOf(login.getMessage()).replaceAll("\\s*\\R\\s*", " ").strip()
            + " [sqlstate "
            + login.getSQLState()
            + "]",
        where,
        "check the user and password (in the URL, the user/password given with it, or PGPASSWORD)"
            + " and that pg_hba.conf lets this user in from here",
        false,
        e);
  }

  public static FlowsException translate(Exception e) {
    if (authFailure(e)) {
      return authFailed(e, "sqlstate " + sqlCause(e).map(SQLException::getSQLState).orElse(""));
    }
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
    if (readOnly(e)) {
      return new FlowsException(
          ErrorCode.DATABASE_UNAVAILABLE,
          "database unavailable: the server takes no writes (a standby, or a primary being"
              + " demoted): "
              + message,
          "sqlstate " + state,
          "connect to the primary: list every node in the URL with targetServerType=primary"
              + " (jdbc:postgresql://h1:p1,h2:p2/db?targetServerType=primary); the call may be"
              + " retried on a new connection",
          true,
          e);
    }
    Optional<SQLException> fault = serverFault(e);
    if (fault.isPresent()) {
      return unavailable(fault.orElseThrow(), e);
    }
    if (connection || poolClosed || (state != null && state.startsWith("08"))) {
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

  /**
   * The deepest SQLException in {@code e}'s causes whose SQLSTATE names a passing fault of the
   * server (a full disk, every connection slot taken, a statement timeout, a terminated backend):
   * the driver's own words, not the pool's wrapper of them ("Connection is not available").
   */
  public static Optional<SQLException> serverFault(Throwable e) {
    return sqlCauses(e)
        .filter(s -> s.getSQLState() != null && UNAVAILABLE.containsKey(s.getSQLState()))
        .reduce((first, deeper) -> deeper);
  }

  private static FlowsException unavailable(SQLException fault, Exception e) {
    String state = fault.getSQLState();
    return new FlowsException(
        ErrorCode.DATABASE_UNAVAILABLE,
        "database unavailable: " + oneLine(fault.getMessage()) + " [sqlstate " + state + "]",
        "sqlstate " + state,
        UNAVAILABLE.get(state),
        true,
        e);
  }

  private static String oneLine(String message) {
    return String.valueOf(message).replaceAll("\\s*\\R\\s*", " ").strip();
  }

  private static java.util.stream.Stream<SQLException> sqlCauses(Throwable e) {
    java.util.stream.Stream.Builder<SQLException> out = java.util.stream.Stream.builder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        out.add(s);
      }
    }
    return out.build();
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
