package dev.flows.worker;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.PayloadLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Function;

/**
 * Every timeout and limit of the worker module, in one place. {@link #defaults()} gives the named
 * defaults; tests and deployments change single fields with the {@code with...} methods.
 *
 * @param defaultLease lease length for steps whose spec names no {@code leaseMs}
 * @param renewalDivisor the lease is renewed when {@code 1/renewalDivisor} of what remains of it
 *     has passed (3: renew at one third, so two renewals can fail before the lease runs out)
 * @param capacity how many attempts this worker runs at once
 * @param pollInterval longest wait for a wake-up before claiming again anyway (a lost NOTIFY costs
 *     at most this much latency)
 * @param reconcileInterval how often this worker asks the journal to expire overdue leases
 * @param stopGrace how long a clean stop lets running attempts finish before canceling them
 * @param stopCompletionTimeout how long a clean stop waits for canceled attempts to complete
 * @param defaultStepTimeout timeout of a deterministic step whose spec names no {@code timeoutMs}
 * @param killGrace time between SIGTERM and SIGKILL of a step's process group
 * @param tailCapBytes total bytes of stdout and stderr kept in a trajectory tail
 * @param dbRetryMaxAttempts attempts (first try included) for a journal call hit by a transient
 *     database fault
 * @param dbRetryInitialBackoff first wait between those attempts
 * @param dbRetryMultiplier growth of the wait per attempt
 * @param dbRetryMaxBackoff cap on one wait
 * @param dbRetryJitter randomization factor of each wait (0.5: anywhere in +/-50%)
 * @param claimBatch most attempts one claim takes: a worker with a large capacity starts its work a
 *     batch at a time rather than all at once
 * @param congestionPause while any caller waits for a database connection a claim loop with more
 *     free slots than one {@code claimBatch} takes no new work; it looks again after this pause (at
 *     most a poll interval in all), so a burst of starting attempts does not queue for the pool
 *     past its connection timeout
 * @param payloadLimits the largest step output and MCP receipt this worker journals (a larger one
 *     fails its step {@code payload_too_large}); its other limits are the journal's defaults
 */
public record WorkerConfig(
    Duration defaultLease,
    int renewalDivisor,
    int capacity,
    Duration pollInterval,
    Duration reconcileInterval,
    Duration stopGrace,
    Duration stopCompletionTimeout,
    Duration defaultStepTimeout,
    Duration killGrace,
    int tailCapBytes,
    int dbRetryMaxAttempts,
    Duration dbRetryInitialBackoff,
    double dbRetryMultiplier,
    Duration dbRetryMaxBackoff,
    double dbRetryJitter,
    int claimBatch,
    Duration congestionPause,
    PayloadLimits payloadLimits) {

  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  public static final String PROPERTY_PREFIX = "flows.worker.";
  public static final int DEFAULT_RENEWAL_DIVISOR = 3;
  public static final int DEFAULT_CAPACITY = 16;
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_RECONCILE_INTERVAL = Duration.ofSeconds(5);
  public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(10);
  public static final Duration DEFAULT_STOP_COMPLETION_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_STEP_TIMEOUT = Duration.ofMinutes(10);
  public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(5);
  public static final int DEFAULT_TAIL_CAP_BYTES = 16 * 1024;
  public static final int DEFAULT_DB_RETRY_MAX_ATTEMPTS = 8;
  public static final Duration DEFAULT_DB_RETRY_INITIAL_BACKOFF = Duration.ofMillis(100);
  public static final double DEFAULT_DB_RETRY_MULTIPLIER = 2.0;
  public static final Duration DEFAULT_DB_RETRY_MAX_BACKOFF = Duration.ofSeconds(2);
  public static final double DEFAULT_DB_RETRY_JITTER = 0.5;
  public static final int DEFAULT_CLAIM_BATCH = 64;
  public static final Duration DEFAULT_CONGESTION_PAUSE = Duration.ofMillis(10);

  public WorkerConfig {
    requirePositive(defaultLease, "defaultLease");
    requirePositive(pollInterval, "pollInterval");
    requirePositive(reconcileInterval, "reconcileInterval");
    requireNonNegative(stopGrace, "stopGrace");
    requireNonNegative(stopCompletionTimeout, "stopCompletionTimeout");
    requirePositive(defaultStepTimeout, "defaultStepTimeout");
    requireNonNegative(killGrace, "killGrace");
    requirePositive(dbRetryInitialBackoff, "dbRetryInitialBackoff");
    requirePositive(dbRetryMaxBackoff, "dbRetryMaxBackoff");
    requirePositive(congestionPause, "congestionPause");
    Objects.requireNonNull(payloadLimits, "payloadLimits");
    if (claimBatch < 1) {
      throw new IllegalArgumentException("claimBatch must be >= 1");
    }
    if (renewalDivisor < 2) {
      throw new IllegalArgumentException("renewalDivisor must be >= 2 to renew before expiry");
    }
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1");
    }
    if (tailCapBytes < 2) {
      throw new IllegalArgumentException("tailCapBytes must be >= 2 (half for each stream)");
    }
    if (dbRetryMaxAttempts < 1) {
      throw new IllegalArgumentException("dbRetryMaxAttempts must be >= 1");
    }
    if (dbRetryMultiplier < 1.0) {
      throw new IllegalArgumentException("dbRetryMultiplier must be >= 1");
    }
    if (dbRetryJitter < 0.0 || dbRetryJitter >= 1.0) {
      throw new IllegalArgumentException("dbRetryJitter must be in [0, 1)");
    }
  }

  public static WorkerConfig defaults() {
    return new WorkerConfig(
        DEFAULT_LEASE,
        DEFAULT_RENEWAL_DIVISOR,
        DEFAULT_CAPACITY,
        DEFAULT_POLL_INTERVAL,
        DEFAULT_RECONCILE_INTERVAL,
        DEFAULT_STOP_GRACE,
        DEFAULT_STOP_COMPLETION_TIMEOUT,
        DEFAULT_STEP_TIMEOUT,
        DEFAULT_KILL_GRACE,
        DEFAULT_TAIL_CAP_BYTES,
        DEFAULT_DB_RETRY_MAX_ATTEMPTS,
        DEFAULT_DB_RETRY_INITIAL_BACKOFF,
        DEFAULT_DB_RETRY_MULTIPLIER,
        DEFAULT_DB_RETRY_MAX_BACKOFF,
        DEFAULT_DB_RETRY_JITTER,
        DEFAULT_CLAIM_BATCH,
        DEFAULT_CONGESTION_PAUSE,
        PayloadLimits.DEFAULTS);
  }

  /**
   * This config with the fields named in {@code p} replaced: {@code flows.worker.capacity} and, in
   * milliseconds, {@code flows.worker.leaseMs}, {@code pollMs}, {@code reconcileMs}, {@code
   * stopGraceMs}, {@code killGraceMs}. Refused {@code config_invalid} when a value is not a number
   * or out of range.
   */
  public WorkerConfig overriddenBy(Properties p) {
    Builder b = toBuilder();
    try {
      String capacity = p.getProperty(PROPERTY_PREFIX + "capacity");
      if (capacity != null) {
        b.capacity(Integer.parseInt(capacity.trim()));
      }
      millis(p, "leaseMs", b::defaultLease);
      millis(p, "pollMs", b::pollInterval);
      millis(p, "reconcileMs", b::reconcileInterval);
      millis(p, "stopGraceMs", b::stopGrace);
      millis(p, "killGraceMs", b::killGrace);
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          e.getMessage(),
          PROPERTY_PREFIX + "*",
          "give whole numbers in range (durations in milliseconds)");
    }
  }

  private static void millis(Properties p, String name, Function<Duration, Builder> set) {
    String v = p.getProperty(PROPERTY_PREFIX + name);
    if (v != null) {
      set.apply(Duration.ofMillis(Long.parseLong(v.trim())));
    }
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Changes single fields of a config; {@link #build()} validates the result. */
  public static final class Builder {
    private Duration defaultLease;
    private int renewalDivisor;
    private int capacity;
    private Duration pollInterval;
    private Duration reconcileInterval;
    private Duration stopGrace;
    private Duration stopCompletionTimeout;
    private Duration defaultStepTimeout;
    private Duration killGrace;
    private int tailCapBytes;
    private int dbRetryMaxAttempts;
    private Duration dbRetryInitialBackoff;
    private double dbRetryMultiplier;
    private Duration dbRetryMaxBackoff;
    private double dbRetryJitter;
    private int claimBatch;
    private Duration congestionPause;
    private PayloadLimits payloadLimits;

    private Builder(WorkerConfig c) {
      defaultLease = c.defaultLease;
      renewalDivisor = c.renewalDivisor;
      capacity = c.capacity;
      pollInterval = c.pollInterval;
      reconcileInterval = c.reconcileInterval;
      stopGrace = c.stopGrace;
      stopCompletionTimeout = c.stopCompletionTimeout;
      defaultStepTimeout = c.defaultStepTimeout;
      killGrace = c.killGrace;
      tailCapBytes = c.tailCapBytes;
      dbRetryMaxAttempts = c.dbRetryMaxAttempts;
      dbRetryInitialBackoff = c.dbRetryInitialBackoff;
      dbRetryMultiplier = c.dbRetryMultiplier;
      dbRetryMaxBackoff = c.dbRetryMaxBackoff;
      dbRetryJitter = c.dbRetryJitter;
      claimBatch = c.claimBatch;
      congestionPause = c.congestionPause;
      payloadLimits = c.payloadLimits;
    }

    public Builder claimBatch(int v) {
      claimBatch = v;
      return this;
    }

    public Builder congestionPause(Duration v) {
      congestionPause = v;
      return this;
    }

    public Builder payloadLimits(PayloadLimits v) {
      payloadLimits = v;
      return this;
    }

    public Builder defaultLease(Duration v) {
      defaultLease = v;
      return this;
    }

    public Builder capacity(int v) {
      capacity = v;
      return this;
    }

    public Builder pollInterval(Duration v) {
      pollInterval = v;
      return this;
    }

    public Builder reconcileInterval(Duration v) {
      reconcileInterval = v;
      return this;
    }

    public Builder stopGrace(Duration v) {
      stopGrace = v;
      return this;
    }

    public Builder stopCompletionTimeout(Duration v) {
      stopCompletionTimeout = v;
      return this;
    }

    public Builder defaultStepTimeout(Duration v) {
      defaultStepTimeout = v;
      return this;
    }

    public Builder killGrace(Duration v) {
      killGrace = v;
      return this;
    }

    public Builder tailCapBytes(int v) {
      tailCapBytes = v;
      return this;
    }

    public Builder dbRetry(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
      dbRetryMaxAttempts = maxAttempts;
      dbRetryInitialBackoff = initialBackoff;
      dbRetryMaxBackoff = maxBackoff;
      return this;
    }

    public WorkerConfig build() {
      return new WorkerConfig(
          defaultLease,
          renewalDivisor,
          capacity,
          pollInterval,
          reconcileInterval,
          stopGrace,
          stopCompletionTimeout,
          defaultStepTimeout,
          killGrace,
          tailCapBytes,
          dbRetryMaxAttempts,
          dbRetryInitialBackoff,
          dbRetryMultiplier,
          dbRetryMaxBackoff,
          dbRetryJitter,
          claimBatch,
          congestionPause,
          payloadLimits);
    }
  }

  /** When, after a renewal at {@code renewedAt} that holds until {@code deadline}, to renew. */
  public Instant nextRenewalAt(Instant renewedAt, Instant deadline) {
    Duration remaining = Duration.between(renewedAt, deadline);
    return renewedAt.plus(remaining.dividedBy(renewalDivisor));
  }

  private static void requirePositive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive");
    }
  }

  private static void requireNonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative");
    }
  }
}
