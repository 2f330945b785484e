package dev.flows.kernel.journal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The wake-up behind a {@link RunWatch}: {@link #signal} counts a possible change, {@link #await}
 * answers true once a change came since the last one it answered (so a signal given before the
 * waiter arrives is not lost), false when {@code timeout} passed without one.
 */
public final class WakeCounter {
  private long signals; // guarded by this
  private long seen; // guarded by this

  public synchronized void signal() {
    signals++;
    notifyAll();
  }

  public synchronized boolean await(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (signals == seen) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    seen = signals;
    return true;
  }
}
