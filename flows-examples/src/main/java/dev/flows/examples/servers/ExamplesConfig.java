package dev.flows.examples.servers;

import java.time.Duration;

/**
 * Limits and timeouts of the example MCP servers, with named defaults.
 *
 * @param requestTimeout how long the SDK server waits on a request it sends to a client
 * @param keepAliveInterval how often the HTTP server pings an open session's stream
 * @param maxSessions HTTP sessions whose state is kept; the least recently used is dropped beyond
 * @param maxLedgerKeys idempotency keys remembered; a new key beyond this is refused, never a
 *     remembered one forgotten, so at-most-once holds for every key ever answered
 * @param maxAmountCents the largest charge or credit accepted
 * @param maxTextChars the longest text argument accepted
 * @param stopTimeout how long the HTTP server waits for requests in flight when stopping
 * @param stdinEofGrace how long the stdio server, once its input has ended, still waits for the
 *     answers to requests it already read before it exits
 */
public record ExamplesConfig(
    Duration requestTimeout,
    Duration keepAliveInterval,
    int maxSessions,
    int maxLedgerKeys,
    long maxAmountCents,
    int maxTextChars,
    Duration stopTimeout,
    Duration stdinEofGrace) {
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_KEEP_ALIVE_INTERVAL = Duration.ofSeconds(30);
  public static final int DEFAULT_MAX_SESSIONS = 1_024;
  public static final int DEFAULT_MAX_LEDGER_KEYS = 100_000;
  public static final long DEFAULT_MAX_AMOUNT_CENTS = 100_000_000L;
  public static final int DEFAULT_MAX_TEXT_CHARS = 16_384;
  public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_STDIN_EOF_GRACE = Duration.ofSeconds(5);

  public ExamplesConfig {
    if (maxSessions < 1 || maxLedgerKeys < 1 || maxAmountCents < 1 || maxTextChars < 1) {
      throw new IllegalArgumentException("limits must be positive");
    }
  }

  public static ExamplesConfig defaults() {
    return new ExamplesConfig(
        DEFAULT_REQUEST_TIMEOUT,
        DEFAULT_KEEP_ALIVE_INTERVAL,
        DEFAULT_MAX_SESSIONS,
        DEFAULT_MAX_LEDGER_KEYS,
        DEFAULT_MAX_AMOUNT_CENTS,
        DEFAULT_MAX_TEXT_CHARS,
        DEFAULT_STOP_TIMEOUT,
        DEFAULT_STDIN_EOF_GRACE);
  }
}
