package dev.flows.worker;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The stop signal of a {@link Worker}'s loops: raised once by a stop, and lowered again (a new
 * signal) when the worker starts again after it, once the loops that read the raised one ended.
 */
final class StopSignal {
  private volatile CountDownLatch latch = new CountDownLatch(1);

  boolean raised() {
    return latch.getCount() == 0;
  }

  void raise() {
    latch.countDown();
  }

  /**
   * A new signal, not raised, for the next start, once {@code loops} (the threads that read this
   * one; null before the first start) ended: waits up to {@code wait} for each, and refuses while
   * one still runs.
   */
  void lowerAfter(Duration wait, Thread... loops) {
    if (!raised()) {
      return;
    }
    for (Thread t : loops) {
      if (t != null) {
        join(t, wait);
        if (t.isAlive()) {
          throw new IllegalStateException(t.getName() + " of the last start is still stopping");
        }
      }
    }
    latch = new CountDownLatch(1);
  }

  static void join(Thread t, Duration d) {
    try {
      t.join(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits for the signal up to {@code d}; answers true when it is raised (or on an interrupt). */
  boolean await(Duration d) {
    try {
      return latch.await(d.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }
}
