package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.WakeCounter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A watch on several runs that wakes when any of them may have changed: each run's own watch is
 * awaited by a virtual thread of its own, which ends when this watch is closed.
 */
final class AnyRunWatch implements RunWatch {
  private static final Duration LOOK = Duration.ofMinutes(1);
  private final List<RunWatch> watches;
  private final List<Thread> threads = new ArrayList<>();
  private final WakeCounter wakes = new WakeCounter();

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
                          wakes.signal();
                        }
                      }
                    } catch (InterruptedException e) {
                      // Closed.
                    }
                  }));
    }
  }

  @Override
  public boolean await(Duration timeout) throws InterruptedException {
    return wakes.await(timeout);
  }

  @Override
  public void close() {
    threads.forEach(Thread::interrupt);
    watches.forEach(RunWatch::close);
  }
}
