package dev.flows.kernel.spec;

import dev.flows.kernel.keys.Keys;

/**
 * Delay before the next attempt of a step. Exponential, capped, with jitter seeded from the step's
 * idempotency key and the attempt number: deterministic (the same on every worker and in every
 * replay), yet spread across steps so retries do not stampede.
 */
public final class Backoff {
  private Backoff() {}

  /** Delay in ms after attempt {@code attempt} (1-based) failed. */
  public static long delayMs(RetryPolicy p, int attempt, String idempotencyKey) {
    double base = p.initialBackoffMs() * Math.pow(p.multiplier(), Math.max(0, attempt - 1));
    double capped = Math.min(base, (double) p.maxBackoffMs());
    // A value in [-1, 1) from the key: hex digits of sha256 are uniform.
    String h = Keys.sha256Hex(idempotencyKey + "\u0000" + attempt);
    double unit = (Long.parseLong(h.substring(0, 12), 16) / (double) (1L << 48)) * 2.0 - 1.0;
    double jittered = capped * (1.0 + unit * p.jitterPercent() / 100.0);
    return Math.max(0L, Math.min(p.maxBackoffMs(), Math.round(jittered)));
  }
}
