package dev.flows.sdk;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.spec.Backoff;
import dev.flows.kernel.spec.BackoffPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a call is retried: at most {@code maxAttempts} attempts, waiting {@code initialBackoff} after
 * the first failure and {@code multiplier} times longer after each next one, never more than {@code
 * maxBackoff}; a failure named in {@code notRetried} (an error code such as {@code mcp_tool_error}
 * or {@code timeout}, or an exception class name, matched against the class and its supertypes) is
 * not retried. Written {@code RetryPolicy.attempts(3).backoff(Duration.ofMillis (200), 2.0,
 * Duration.ofSeconds(5)).doNotRetry(IllegalArgumentException.class)}.
 *
 * @throws FlowsError {@code invalid_input} for fewer than one attempt, a negative backoff, a
 *     multiplier below 1, a {@code maxBackoff} below {@code initialBackoff} or a blank name
 */
public record RetryPolicy(
    int maxAttempts,
    Duration initialBackoff,
    double multiplier,
    Duration maxBackoff,
    List<String> notRetried) {
  public static final Duration DEFAULT_INITIAL_BACKOFF =
      Duration.ofMillis(BackoffPolicy.DEFAULT_INITIAL_BACKOFF_MS);
  public static final double DEFAULT_MULTIPLIER = BackoffPolicy.DEFAULT_MULTIPLIER;
  public static final Duration DEFAULT_MAX_BACKOFF =
      Duration.ofMillis(BackoffPolicy.DEFAULT_MAX_BACKOFF_MS);

  public RetryPolicy {
    if (maxAttempts < 1) {
      throw invalid("a retry policy needs at least 1 attempt, got " + maxAttempts);
    }
    if (initialBackoff == null || initialBackoff.isNegative()) {
      throw invalid("the initial backoff must be zero or more, got " + initialBackoff);
    }
    if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
      throw invalid(
          "the backoff multiplier must be a finite number of at least 1, got " + multiplier);
    }
    if (maxBackoff == null || maxBackoff.compareTo(initialBackoff) < 0) {
      throw invalid(
          "the max backoff ("
              + maxBackoff
              + ") is less than the initial one ("
              + initialBackoff
              + ")");
    }
    notRetried = List.copyOf(notRetried);
    for (String n : notRetried) {
      if (n.isBlank()) {
        throw invalid("doNotRetry names an empty code or class");
      }
    }
  }

  /** {@code n} attempts with the default backoff (100 ms, doubling, at most 60 s). */
  public static RetryPolicy attempts(int n) {
    return new RetryPolicy(
        n, DEFAULT_INITIAL_BACKOFF, DEFAULT_MULTIPLIER, DEFAULT_MAX_BACKOFF, List.of());
  }

  /** One attempt: a failure is final. */
  public static RetryPolicy none() {
    return attempts(1);
  }

  /** This policy with another backoff. */
  public RetryPolicy backoff(Duration initial, double multiplier, Duration max) {
    return new RetryPolicy(maxAttempts, initial, multiplier, max, notRetried);
  }

  /** This policy, also not retrying failures with these error codes or exception class names. */
  public RetryPolicy doNotRetry(String... codesOrClassNames) {
    List<String> all = new ArrayList<>(notRetried);
    all.addAll(List.of(codesOrClassNames));
    return new RetryPolicy(maxAttempts, initialBackoff, multiplier, maxBackoff, all);
  }

  /** This policy, also not retrying these exceptions (and their subclasses). */
  @SafeVarargs
  public final RetryPolicy doNotRetry(Class<? extends Throwable>... types) {
    return doNotRetry(java.util.Arrays.stream(types).map(Class::getName).toArray(String[]::new));
  }

  /**
   * Whether a failure with error code {@code code} (may be empty) and cause {@code t} is retried.
   */
  public boolean retries(String code, Throwable t) {
    if (notRetried.contains(code)) {
      return false;
    }
    for (Class<?> c = t == null ? null : t.getClass(); c != null; c = c.getSuperclass()) {
      if (notRetried.contains(c.getName())) {
        return false;
      }
      for (Class<?> i : c.getInterfaces()) {
        if (notRetried.contains(i.getName())) {
          return false;
        }
      }
    }
    return true;
  }

  /** The wait after failed attempt {@code attempt} (1-based), before jitter. */
  public Duration backoffAfter(int attempt) {
    return Duration.ofMillis(
        (long)
            Backoff.cappedMs(
                initialBackoff.toMillis(), multiplier, maxBackoff.toMillis(), attempt));
  }

  private static FlowsError invalid(String message) {
    return new FlowsError(
        ErrorCode.INVALID_INPUT.wire(),
        message,
        "RetryPolicy",
        "fix the retry policy of the call",
        false,
        null);
  }
}
