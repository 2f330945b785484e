package dev.flows.sdk.runtime;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds how many bodies of one runner wait on a child run in memory at once ({@link
 * SdkConfig#maxResidentWaits}): past the bound, a body that would wait gives its attempt back at
 * once instead of after {@link SdkConfig#suspendAfter}, so a burst of slow calls cannot hold more
 * bodies (threads, contexts, specs) than the bound, however many runs there are.
 */
final class ResidentWaits {
  private final int max;
  private final AtomicInteger waiting = new AtomicInteger();

  ResidentWaits(int max) {
    this.max = max;
  }

  /** Takes a place if one is free; a taken place must be given back with {@link #leave}. */
  boolean tryEnter() {
    while (true) {
      int now = waiting.get();
      if (now >= max) {
        return false;
      }
      if (waiting.compareAndSet(now, now + 1)) {
        return true;
      }
    }
  }

  void leave() {
    waiting.decrementAndGet();
  }
}
