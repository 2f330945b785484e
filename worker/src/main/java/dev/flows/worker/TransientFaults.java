package dev.flows.worker;

import dev.flows.kernel.FlowsException;
import java.net.ConnectException;
import java.net.SocketException;
import java.util.IdentityHashMap;
import java.util.Map;

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
}
