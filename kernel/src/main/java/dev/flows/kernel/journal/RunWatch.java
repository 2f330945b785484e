package dev.flows.kernel.journal;

import java.time.Duration;

/** A watch on one run, opened by {@link Journal#watchRun}; close it when done waiting. */
public interface RunWatch extends AutoCloseable {
  /**
   * Blocks until the run may have changed since the watch was opened (or since the last {@code
   * await} that answered true), or the timeout passes. Answers true when woken early.
   */
  boolean await(Duration timeout) throws InterruptedException;

  @Override
  void close();
}
