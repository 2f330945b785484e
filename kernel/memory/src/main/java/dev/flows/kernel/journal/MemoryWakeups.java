package dev.flows.kernel.journal;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The in-memory journal's one lock and what waits on it: workers waiting for claimable work ({@link
 * #awaitWork}) and watchers of one run ({@link #watch}). Every verb runs under {@link #locked}; a
 * verb that readies work calls {@link #wake}, and every journal entry counts as a change of its run
 * ({@link #changed}).
 */
final class MemoryWakeups {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  private long wakeups;
  private final Map<RunRef, Long> runChanges = new HashMap<>();

  <T> T locked(Supplier<T> verb) {
    lock.lock();
    try {
      return verb.get();
    } finally {
      lock.unlock();
    }
  }

  /** Work may be claimable now: wakes {@link #awaitWork} waiters. Called under the lock. */
  void wake() {
    wakeups++;
    work.signalAll();
  }

  /**
   * {@code runId} changed: wakes its watchers ({@link #awaitWork} waiters re-check their own
   * counter and keep waiting). Called under the lock.
   */
  void changed(RunRef runId) {
    runChanges.merge(runId, 1L, Long::sum);
    work.signalAll();
  }

  boolean awaitWork(Duration timeout) throws InterruptedException {
    lock.lock();
    try {
      long seen = wakeups;
      long nanos = timeout.toNanos();
      while (wakeups == seen) {
        if (nanos <= 0) {
          return false;
        }
        nanos = work.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  RunWatch watch(RunRef runId) {
    long[] seen = {locked(() -> runChanges.getOrDefault(runId, 0L))};
    return new RunWatch() {
      @Override
      public boolean await(Duration timeout) throws InterruptedException {
        lock.lock();
        try {
          long nanos = timeout.toNanos();
          while (runChanges.getOrDefault(runId, 0L) == seen[0]) {
            if (nanos <= 0) {
              return false;
            }
            nanos = work.awaitNanos(nanos);
          }
          seen[0] = runChanges.getOrDefault(runId, 0L);
          return true;
        } finally {
          lock.unlock();
        }
      }

      @Override
      public void close() {}
    };
  }
}
