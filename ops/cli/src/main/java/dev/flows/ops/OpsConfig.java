package dev.flows.ops;

import java.time.Duration;

/**
 * Every timeout and limit of the {@code flows} command, with named defaults.
 *
 * @param embeddedStartTimeout how long {@code pg_ctl start} may take (first start includes initdb)
 * @param embeddedStopTimeout how long {@code pg_ctl stop} may take
 * @param startLockTimeout how long a command waits for another one that is starting the embedded
 *     server
 * @param connectTimeout how long connecting to the database may take before it counts as
 *     unreachable
 * @param watchPollInterval how often {@code flows runs watch} reads the journal
 * @param listDefaultLimit rows {@code flows runs list} shows without {@code --limit}
 * @param listMaxLimit the largest {@code --limit} accepted
 * @param journalPoolSize connections a command's journal holds (commands are short-lived)
 */
public record OpsConfig(
    Duration embeddedStartTimeout,
    Duration embeddedStopTimeout,
    Duration startLockTimeout,
    Duration connectTimeout,
    Duration watchPollInterval,
    int listDefaultLimit,
    int listMaxLimit,
    int journalPoolSize) {

  public static final Duration DEFAULT_EMBEDDED_START_TIMEOUT = Duration.ofSeconds(120);
  public static final Duration DEFAULT_EMBEDDED_STOP_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_START_LOCK_TIMEOUT = Duration.ofSeconds(180);
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_WATCH_POLL_INTERVAL = Duration.ofMillis(500);
  public static final int DEFAULT_LIST_LIMIT = 50;
  public static final int DEFAULT_LIST_MAX_LIMIT = 10_000;
  public static final int DEFAULT_JOURNAL_POOL_SIZE = 2;

  public OpsConfig {
    requirePositive(embeddedStartTimeout, "embeddedStartTimeout");
    requirePositive(embeddedStopTimeout, "embeddedStopTimeout");
    requirePositive(startLockTimeout, "startLockTimeout");
    requirePositive(connectTimeout, "connectTimeout");
    requirePositive(watchPollInterval, "watchPollInterval");
    if (listDefaultLimit < 1 || listMaxLimit < listDefaultLimit) {
      throw new IllegalArgumentException("need 1 <= listDefaultLimit <= listMaxLimit");
    }
    if (journalPoolSize < 1) {
      throw new IllegalArgumentException("journalPoolSize must be >= 1");
    }
  }

  public static OpsConfig defaults() {
    return new OpsConfig(
        DEFAULT_EMBEDDED_START_TIMEOUT,
        DEFAULT_EMBEDDED_STOP_TIMEOUT,
        DEFAULT_START_LOCK_TIMEOUT,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_WATCH_POLL_INTERVAL,
        DEFAULT_LIST_LIMIT,
        DEFAULT_LIST_MAX_LIMIT,
        DEFAULT_JOURNAL_POOL_SIZE);
  }

  public OpsConfig withWatchPollInterval(Duration interval) {
    return new OpsConfig(
        embeddedStartTimeout,
        embeddedStopTimeout,
        startLockTimeout,
        connectTimeout,
        interval,
        listDefaultLimit,
        listMaxLimit,
        journalPoolSize);
  }

  private static void requirePositive(Duration d, String name) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive");
    }
  }
}
