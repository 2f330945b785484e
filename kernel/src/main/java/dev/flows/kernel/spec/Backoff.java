package dev.flows.kernel.spec;

import dev.flows.kernel.keys.Keys;

/**
 * The one backoff formula: exponential from an initial delay by a multiplier, capped, then
 * jittered. A step's retries ({@link #delayMs}) seed the jitter from the step's idempotency key and
 * the attempt number, so the delay is the same on every worker and in every replay yet spread
 * across steps; an MCP client's reconnects pass their own random unit; a call's retry policy in the
 * SDK reads the delay before jitter.
 */
public final class Backoff {
  private Backoff() {}

  /** Delay in ms after attempt {@code attempt} (1-based) of a step failed. */
  public static long delayMs(BackoffPolicy p, int attempt, String idempotencyKey) {
    double capped = cappedMs(p.initialBackoffMs(), p.multiplier(), p.maxBackoffMs(), attempt);
    // A value in [-1, 1) from the key: hex digits of sha256 are uniform.
    String h = Keys.sha256Hex(idempotencyKey + "\u0000" + attempt);
    double unit = (Long.parseLong(h.substring(0, 12), 16) / (double) (1L << 48)) * 2.0 - 1.0;
    return jitteredMs(capped, unit, p.jitterPercent(), p.maxBackoffMs());
  }

  /**
   * The delay before jitter after attempt {@code attempt} (1-based): {@code initialMs ×
   * multiplier^(attempt−1)}, at most {@code maxMs}.
   */
  public static double cappedMs(double initialMs, double multiplier, double maxMs, int attempt) {
    double base = initialMs * Math.pow(multiplier, Math.max(0, attempt - 1));
    return Math.min(base, maxMs);
  }

  /**
   * {@code cappedMs} moved by {@code unit} (clamped to [-1, 1]) times {@code jitterPercent}
   * percent, rounded, within 0 and {@code maxMs}.
   */
  public static long jitteredMs(double cappedMs, double unit, double jitterPercent, long maxMs) {
    double u = Math.max(-1.0, Math.min(1.0, unit));
    double jittered = cappedMs * (1.0 + u * jitterPercent / 100.0);
    return Math.max(0L, Math.min(maxMs, Math.round(jittered)));
  }
}
