package dev.flows.ops.bench;

import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.PruneRequest;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What {@code flows runs prune} does, batch after batch with its pause between batches, but only
 * while asked to: the prune section's windows switch it on and off. The lock is held a batch at a
 * time (not through the pause) and is fair, so a switch waits for one batch at most.
 */
final class PausablePrune {
  private final PostgresJournal journal;
  private final int batchSize;
  private final Duration pause;
  private final ReentrantLock batch = new ReentrantLock(true);
  private final Condition changed = batch.newCondition();
  private boolean pruning;
  private volatile boolean done;
  private long pruneNanos;

  PausablePrune(PostgresJournal journal, int batchSize, Duration pause) {
    this.journal = journal;
    this.batchSize = batchSize;
    this.pause = pause;
  }

  /** Starts the loop on a thread of its own, paused until {@link #set} switches it on. */
  Thread start() {
    return Thread.ofPlatform().name("bench-prune").start(this::pruneWhenAsked);
  }

  /** Switches pruning on or off once the batch under way (if any) ended. */
  void set(boolean on) {
    batch.lock();
    try {
      pruning = on;
      changed.signalAll();
    } finally {
      batch.unlock();
    }
  }

  /** Whether the prune found nothing left, or was stopped. */
  boolean done() {
    return done;
  }

  /** Ends the loop after the batch under way. */
  void stop() {
    done = true;
    set(false);
  }

  /** The batches' own time, summed. */
  long pruneNanos() {
    batch.lock();
    try {
      return pruneNanos;
    } finally {
      batch.unlock();
    }
  }

  private void pruneWhenAsked() {
    PruneRequest request =
        new PruneRequest(Duration.ofDays(30), OptionalInt.of(batchSize), "bench", false);
    while (!done) {
      batch.lock();
      try {
        while (!pruning && !done) {
          changed.await();
        }
        if (done) {
          return;
        }
        long t = System.nanoTime();
        if (journal.prune(request).empty()) {
          done = true;
        }
        pruneNanos += System.nanoTime() - t;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        batch.unlock();
      }
      if (pause.isPositive() && !done) {
        try {
          Thread.sleep(pause);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
