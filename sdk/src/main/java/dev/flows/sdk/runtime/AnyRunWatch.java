package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.RunWatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A watch on several runs that wakes when any of them may have changed: each run's own watch is
 * awaited by a virtual thread of its own, which ends when this watch is closed.
 */
final class AnyRunWatch implements RunWatch {
  private static final Duration LOOK = Duration.ofMinutes(1);
  private final List<RunWatch> watches;
  private final List<Thread> threads = new ArrayList<>();
  private long signals; // guarded by this
  private long seen; // guarded by this

  AnyRunWatch(List<RunWatch> watches) {
    this.watches = List.copyOf(watches);
    for (RunWatch w : this.watches) {
      threads.add(
          Thread.ofVirtual()
              .name("flows-watch")
              .start(
                  () -> {
                    try {
                      while (!Thread.currentThread().isInterrupted()) {
                        if (w.await(LOOK)) {
                          signal();
                        }
                      }
                    } catch (InterruptedException e) {
                      // Closed.
                    }
                  }));
    }
  }

  private synchronized void signal() {
    signals++;
    notifyAll();
  }

  @Override
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

  @Override
  public void close() {
    threads.forEach(Thread::interrupt);
    watches.forEach(RunWatch::close);
  }
}
