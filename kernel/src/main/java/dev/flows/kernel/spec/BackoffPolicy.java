package dev.flows.kernel.spec;

/** Backoff between attempts of one step. Defaults match the TypeScript engine's contract. */
public record BackoffPolicy(
    long initialBackoffMs, long maxBackoffMs, double multiplier, int jitterPercent) {
  public static final long DEFAULT_INITIAL_BACKOFF_MS = 100;
  public static final long DEFAULT_MAX_BACKOFF_MS = 60_000;
  public static final double DEFAULT_MULTIPLIER = 2.0;
  public static final int DEFAULT_JITTER_PERCENT = 20;

  public static BackoffPolicy defaults() {
    return new BackoffPolicy(
        DEFAULT_INITIAL_BACKOFF_MS,
        DEFAULT_MAX_BACKOFF_MS,
        DEFAULT_MULTIPLIER,
        DEFAULT_JITTER_PERCENT);
  }
}
