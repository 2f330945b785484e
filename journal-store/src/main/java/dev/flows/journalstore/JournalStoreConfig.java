package dev.flows.journalstore;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.PayloadLimits;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How the Postgres journal connects and the limits it works within. {@code user} and {@code
 * password} are empty when the JDBC URL carries them (or none is needed).
 *
 * @param poolSize connections in the HikariCP pool (the LISTEN connection is extra)
 * @param connectionTimeout how long a caller waits for a pooled connection before {@code
 *     database_unavailable}
 * @param listenPollInterval how often the LISTEN connection checks for notifications and for close
 * @param listenReconnectDelay the pause before re-opening a lost LISTEN connection
 * @param expiryBatchSize at most this many expired leases are handled per {@code expireLeases}
 * @param groupCommit how concurrent {@code recordConfirmedEffect} and {@code admit} with its end
 *     calls are written together (each verb in batches of its own)
 * @param payloadLimits the run inputs (a schedule's too), signal payloads, input answers and
 *     resolved outputs this journal takes ({@link PayloadLimits#DEFAULTS} unless set)
 */
public record JournalStoreConfig(
    String jdbcUrl,
    Optional<String> user,
    Optional<String> password,
    int poolSize,
    Duration connectionTimeout,
    Duration listenPollInterval,
    Duration listenReconnectDelay,
    int expiryBatchSize,
    GroupCommitLimits groupCommit,
    PayloadLimits payloadLimits) {

  public static final int DEFAULT_POOL_SIZE = 10;
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_LISTEN_POLL_INTERVAL = Duration.ofMillis(500);
  public static final Duration DEFAULT_LISTEN_RECONNECT_DELAY = Duration.ofSeconds(1);
  public static final int DEFAULT_EXPIRY_BATCH_SIZE = 500;

  /**
   * Limits of the group commit of {@code recordConfirmedEffect} (an {@code f.step} memo).
   *
   * @param maxBatch at most this many calls are written by one statement (one transaction)
   * @param maxInFlight at most this many batches are being written at once, each on its own
   *     connection; a call made while fewer run is written at once, the rest queue for the next
   * @param stepSpecCacheSize step specs kept to judge whether a surface is declared without reading
   *     the step (a step's spec never changes); a step not in the cache takes the one-call path
   */
  public record GroupCommitLimits(int maxBatch, int maxInFlight, int stepSpecCacheSize) {
    public static final int DEFAULT_MAX_BATCH = 64;
    public static final int DEFAULT_MAX_IN_FLIGHT = 1;
    public static final int DEFAULT_STEP_SPEC_CACHE_SIZE = 10_000;
    public static final GroupCommitLimits DEFAULTS =
        new GroupCommitLimits(
            DEFAULT_MAX_BATCH, DEFAULT_MAX_IN_FLIGHT, DEFAULT_STEP_SPEC_CACHE_SIZE);

    public GroupCommitLimits {
      if (maxBatch < 1) {
        throw invalid("groupCommit.maxBatch must be >= 1", "groupCommit.maxBatch");
      }
      if (maxInFlight < 1) {
        throw invalid("groupCommit.maxInFlight must be >= 1", "groupCommit.maxInFlight");
      }
      if (stepSpecCacheSize < 0) {
        throw invalid(
            "groupCommit.stepSpecCacheSize must be >= 0", "groupCommit.stepSpecCacheSize");
      }
    }
  }

  public JournalStoreConfig {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    Objects.requireNonNull(groupCommit, "groupCommit");
    Objects.requireNonNull(payloadLimits, "payloadLimits");
    if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw invalid("jdbcUrl must start with jdbc:postgresql:", "jdbcUrl");
    }
    if (poolSize < 1) {
      throw invalid("poolSize must be >= 1", "poolSize");
    }
    if (expiryBatchSize < 1) {
      throw invalid("expiryBatchSize must be >= 1", "expiryBatchSize");
    }
    for (Duration d :
        new Duration[] {connectionTimeout, listenPollInterval, listenReconnectDelay}) {
      if (d.isNegative() || d.isZero()) {
        throw invalid("durations must be positive", "journal-store timeouts");
      }
    }
  }

  /** Connection settings and limits with the default payload limits. */
  public JournalStoreConfig(
      String jdbcUrl,
      Optional<String> user,
      Optional<String> password,
      int poolSize,
      Duration connectionTimeout,
      Duration listenPollInterval,
      Duration listenReconnectDelay,
      int expiryBatchSize,
      GroupCommitLimits groupCommit) {
    this(
        jdbcUrl,
        user,
        password,
        poolSize,
        connectionTimeout,
        listenPollInterval,
        listenReconnectDelay,
        expiryBatchSize,
        groupCommit,
        PayloadLimits.DEFAULTS);
  }

  /** Connection settings and limits with the default group commit limits. */
  public JournalStoreConfig(
      String jdbcUrl,
      Optional<String> user,
      Optional<String> password,
      int poolSize,
      Duration connectionTimeout,
      Duration listenPollInterval,
      Duration listenReconnectDelay,
      int expiryBatchSize) {
    this(
        jdbcUrl,
        user,
        password,
        poolSize,
        connectionTimeout,
        listenPollInterval,
        listenReconnectDelay,
        expiryBatchSize,
        GroupCommitLimits.DEFAULTS);
  }

  /** The named defaults for a database at {@code jdbcUrl}. */
  public static JournalStoreConfig forUrl(String jdbcUrl) {
    return new JournalStoreConfig(
        jdbcUrl,
        Optional.empty(),
        Optional.empty(),
        DEFAULT_POOL_SIZE,
        DEFAULT_CONNECTION_TIMEOUT,
        DEFAULT_LISTEN_POLL_INTERVAL,
        DEFAULT_LISTEN_RECONNECT_DELAY,
        DEFAULT_EXPIRY_BATCH_SIZE);
  }

  public JournalStoreConfig withCredentials(String user, String password) {
    return new JournalStoreConfig(
        jdbcUrl,
        Optional.of(user),
        Optional.of(password),
        poolSize,
        connectionTimeout,
        listenPollInterval,
        listenReconnectDelay,
        expiryBatchSize,
        groupCommit,
        payloadLimits);
  }

  public JournalStoreConfig withPoolSize(int size) {
    return new JournalStoreConfig(
        jdbcUrl,
        user,
        password,
        size,
        connectionTimeout,
        listenPollInterval,
        listenReconnectDelay,
        expiryBatchSize,
        groupCommit,
        payloadLimits);
  }

  public JournalStoreConfig withGroupCommit(GroupCommitLimits limits) {
    return new JournalStoreConfig(
        jdbcUrl,
        user,
        password,
        poolSize,
        connectionTimeout,
        listenPollInterval,
        listenReconnectDelay,
        expiryBatchSize,
        limits,
        payloadLimits);
  }

  /** This configuration with the journal's payloads held to {@code limits}. */
  public JournalStoreConfig withPayloadLimits(PayloadLimits limits) {
    return new JournalStoreConfig(
        jdbcUrl,
        user,
        password,
        poolSize,
        connectionTimeout,
        listenPollInterval,
        listenReconnectDelay,
        expiryBatchSize,
        groupCommit,
        limits);
  }

  private static FlowsException invalid(String message, String place) {
    return new FlowsException(
        ErrorCode.CONFIG_INVALID, message, place, "fix the journal-store configuration");
  }
}
