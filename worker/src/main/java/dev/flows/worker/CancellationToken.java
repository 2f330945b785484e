package dev.flows.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Tells an executor its attempt must stop. Executors check {@link #isCancelled()} between units of
 * work and register {@link #onCancel} callbacks to stop what blocks (child processes, sockets); the
 * attempt's thread is interrupted as well. Cancelling twice keeps the first cause.
 */
public final class CancellationToken {
  /** Why an attempt was told to stop. */
  public enum Cause {
    /** The local lease deadline passed: the journal may already have given the step away. */
    LEASE_EXPIRED("lease_expired"),
    /** A renewal failed with an error that is not a lease refusal. */
    RENEWAL_FAILED("renewal_failed"),
    /** The worker is stopping and the attempt outlived the stop grace. */
    WORKER_SHUTDOWN("worker_shutdown");

    private final String wire;

    Cause(String wire) {
      this.wire = wire;
    }

    public String wire() {
      return wire;
    }
  }

  private final List<Runnable> callbacks = new ArrayList<>();
  private Cause cause;

  public synchronized boolean isCancelled() {
    return cause != null;
  }

  public synchronized Optional<Cause> cause() {
    return Optional.ofNullable(cause);
  }

  /** Cancels; callbacks run once, on the calling thread. Answers false if already cancelled. */
  public boolean cancel(Cause why) {
    List<Runnable> toRun;
    synchronized (this) {
      if (cause != null) {
        return false;
      }
      cause = why;
      toRun = List.copyOf(callbacks);
      callbacks.clear();
    }
    toRun.forEach(Runnable::run);
    return true;
  }

  /** Runs {@code callback} on cancel, or right away if already cancelled. */
  public void onCancel(Runnable callback) {
    synchronized (this) {
      if (cause == null) {
        callbacks.add(callback);
        return;
      }
    }
    callback.run();
  }
}
