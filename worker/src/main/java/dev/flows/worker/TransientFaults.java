package dev.flows.worker;

import dev.flows.kernel.FlowsException;
import dev.flows.kernel.Secrets;
import java.net.ConnectException;
import java.net.SocketException;
import java.util.IdentityHashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Whether a journal call that failed is worth retrying unchanged. The journal decides what a
 * database failure means (a journal adapter translates every driver failure into {@code
 * database_unavailable}, or {@code database_error} marked retryable for serialization failures and
 * deadlocks); this class only reads that answer, so the SQLSTATE rules live in one place, next to
 * the driver. A refused or reset socket underneath anything else is transient too. Every journal
 * refusal ({@code lease_conflict}, {@code run_terminal}, ...) fails fast with its code.
 */
public final class TransientFaults {
  private TransientFaults() {}

  public static boolean isTransient(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, true) == null; t = t.getCause()) {
      if (t instanceof FlowsException fe) {
        return switch (fe.code()) {
          case DATABASE_UNAVAILABLE -> true;
          case DATABASE_ERROR -> fe.retryable();
          // A refusal is the journal's answer, not a fault: retrying cannot change it.
          default -> false;
        };
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
   * One line for a fault, secrets masked: the journal's own words when it translated the fault
   * (they carry the driver's, e.g. "database unavailable: Connection to localhost:5432 refused"),
   * else the deepest message.
   */
  public static String describe(Throwable failure) {
    String journal = null;
    String deepest = null;
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, true) == null; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && !m.isBlank()) {
        deepest = m;
        if (journal == null && t instanceof FlowsException) {
          journal = m;
        }
      }
    }
    String chosen = journal != null ? journal : deepest != null ? deepest : String.valueOf(failure);
    return Secrets.redact(chosen.replaceAll("\\s*\\R\\s*", " ").strip());
  }
}
