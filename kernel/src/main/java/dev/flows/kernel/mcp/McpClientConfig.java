package dev.flows.kernel.mcp;

import dev.flows.kernel.spec.Backoff;
import java.time.Duration;
import java.util.Objects;

/**
 * Every timeout and limit of the MCP client, with named defaults. One record so that nothing is
 * hard-coded in the transports.
 *
 * @param connectTimeout spawn or first request up to a completed initialize handshake
 * @param listTimeout one tools/list page
 * @param callTimeout one tools/call; past it the outcome is unknown ({@code
 *     mcp_result_unavailable})
 * @param stopGrace after stdin is closed (stdio) or DELETE sent (HTTP), how long to wait before
 *     signalling; also the wait between SIGTERM and SIGKILL
 * @param backoffInitial first reconnect delay
 * @param backoffMax cap on any reconnect delay
 * @param backoffFactor growth of the delay per attempt
 * @param backoffJitter fraction of the delay randomly added or removed (0..1)
 * @param maxReconnectAttempts attempts before the connection gives up and is disconnected
 * @param maxStreamResumes resumptions of one interrupted SSE response before its call fails
 * @param maxAuthChallenges 401/403 answers one HTTP request may answer with new credentials (OAuth
 *     needs two at most: discovery, then a step-up); past it the request fails with {@code
 *     auth_failed} instead of looping
 * @param stderrBufferBytes how much of a stdio server's stderr is kept (the newest bytes)
 * @param taskPollMin the shortest wait between two polls of a task (a server's {@code
 *     pollIntervalMs} hint below it is raised to it); also the first wait when the server hints
 *     none, doubled per poll after that
 * @param taskPollMax the longest wait between two polls of a task (a hint above it is lowered)
 * @param maxResultBytes the largest single message a server may send (a tools/call result, a
 *     tools/list page), counted while it is read; past it the request fails {@code
 *     payload_too_large} and the rest of the message is never held in memory
 */
public record McpClientConfig(
    Duration connectTimeout,
    Duration listTimeout,
    Duration callTimeout,
    Duration stopGrace,
    Duration backoffInitial,
    Duration backoffMax,
    double backoffFactor,
    double backoffJitter,
    int maxReconnectAttempts,
    int maxStreamResumes,
    int maxAuthChallenges,
    int stderrBufferBytes,
    Duration taskPollMin,
    Duration taskPollMax,
    int maxResultBytes) {

  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_LIST_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(5);
  public static final Duration DEFAULT_BACKOFF_INITIAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(30);
  public static final double DEFAULT_BACKOFF_FACTOR = 1.5;
  public static final double DEFAULT_BACKOFF_JITTER = 0.2;
  public static final int DEFAULT_MAX_RECONNECT_ATTEMPTS = 10;
  public static final int DEFAULT_MAX_STREAM_RESUMES = 5;
  public static final int DEFAULT_MAX_AUTH_CHALLENGES = 3;
  public static final int DEFAULT_STDERR_BUFFER_BYTES = 1 << 20;
  public static final Duration DEFAULT_TASK_POLL_MIN = Duration.ofSeconds(1);
  public static final Duration DEFAULT_TASK_POLL_MAX = Duration.ofSeconds(30);
  public static final int DEFAULT_MAX_RESULT_BYTES = 4 << 20;

  /** Below this not even a handshake answer fits. */
  public static final int MIN_RESULT_BYTES = 4096;

  public static final McpClientConfig DEFAULTS =
      new McpClientConfig(
          DEFAULT_CONNECT_TIMEOUT,
          DEFAULT_LIST_TIMEOUT,
          DEFAULT_CALL_TIMEOUT,
          DEFAULT_STOP_GRACE,
          DEFAULT_BACKOFF_INITIAL,
          DEFAULT_BACKOFF_MAX,
          DEFAULT_BACKOFF_FACTOR,
          DEFAULT_BACKOFF_JITTER,
          DEFAULT_MAX_RECONNECT_ATTEMPTS,
          DEFAULT_MAX_STREAM_RESUMES,
          DEFAULT_MAX_AUTH_CHALLENGES,
          DEFAULT_STDERR_BUFFER_BYTES,
          DEFAULT_TASK_POLL_MIN,
          DEFAULT_TASK_POLL_MAX,
          DEFAULT_MAX_RESULT_BYTES);

  public McpClientConfig {
    for (Duration d :
        new Duration[] {
          connectTimeout,
          listTimeout,
          callTimeout,
          stopGrace,
          backoffInitial,
          backoffMax,
          taskPollMin,
          taskPollMax
        }) {
      Objects.requireNonNull(d, "duration");
      if (d.isNegative()) {
        throw new IllegalArgumentException("negative duration " + d);
      }
    }
    if (backoffFactor < 1.0) {
      throw new IllegalArgumentException("backoffFactor must be >= 1: " + backoffFactor);
    }
    if (backoffJitter < 0.0 || backoffJitter > 1.0) {
      throw new IllegalArgumentException("backoffJitter must be in [0,1]: " + backoffJitter);
    }
    if (maxReconnectAttempts < 0
        || maxStreamResumes < 0
        || maxAuthChallenges < 0
        || stderrBufferBytes < 0) {
      throw new IllegalArgumentException("limits must be >= 0");
    }
    if (maxResultBytes < MIN_RESULT_BYTES) {
      throw new IllegalArgumentException(
          "maxResultBytes must be >= " + MIN_RESULT_BYTES + ": " + maxResultBytes);
    }
    if (!taskPollMin.isPositive() || taskPollMax.compareTo(taskPollMin) < 0) {
      throw new IllegalArgumentException(
          "task polls need 0 < taskPollMin <= taskPollMax: " + taskPollMin + ", " + taskPollMax);
    }
  }

  /**
   * The wait before poll {@code poll} (1-based) of a task: the server's {@code hint} within [{@code
   * taskPollMin}, {@code taskPollMax}]; without one, {@code taskPollMin} doubled per poll after the
   * first, capped at {@code taskPollMax}.
   */
  public Duration taskPoll(java.util.Optional<Duration> hint, int poll) {
    if (hint.isPresent()) {
      Duration h = hint.get();
      return h.compareTo(taskPollMin) < 0
          ? taskPollMin
          : h.compareTo(taskPollMax) > 0 ? taskPollMax : h;
    }
    long ms = taskPollMin.toMillis() << Math.min(20, Math.max(0, poll - 1));
    return Duration.ofMillis(Math.min(ms, taskPollMax.toMillis()));
  }

  public McpClientConfig withTaskPolls(Duration min, Duration max) {
    return new McpClientConfig(
        connectTimeout,
        listTimeout,
        callTimeout,
        stopGrace,
        backoffInitial,
        backoffMax,
        backoffFactor,
        backoffJitter,
        maxReconnectAttempts,
        maxStreamResumes,
        maxAuthChallenges,
        stderrBufferBytes,
        min,
        max,
        maxResultBytes);
  }

  /**
   * Delay before reconnect attempt {@code attempt} (1-based): exponential, capped, jittered by
   * {@code unit} in [-1, 1] (the caller's random source, so tests can pin it).
   */
  public Duration backoff(int attempt, double unit) {
    long max = backoffMax.toMillis();
    double capped = Backoff.cappedMs(backoffInitial.toMillis(), backoffFactor, max, attempt);
    return Duration.ofMillis(Backoff.jitteredMs(capped, unit, backoffJitter * 100.0, max));
  }

  public McpClientConfig withConnectTimeout(Duration d) {
    return new McpClientConfig(
        d,
        listTimeout,
        callTimeout,
        stopGrace,
        backoffInitial,
        backoffMax,
        backoffFactor,
        backoffJitter,
        maxReconnectAttempts,
        maxStreamResumes,
        maxAuthChallenges,
        stderrBufferBytes,
        taskPollMin,
        taskPollMax,
        maxResultBytes);
  }

  public McpClientConfig withCallTimeout(Duration d) {
    return new McpClientConfig(
        connectTimeout,
        listTimeout,
        d,
        stopGrace,
        backoffInitial,
        backoffMax,
        backoffFactor,
        backoffJitter,
        maxReconnectAttempts,
        maxStreamResumes,
        maxAuthChallenges,
        stderrBufferBytes,
        taskPollMin,
        taskPollMax,
        maxResultBytes);
  }

  public McpClientConfig withStopGrace(Duration d) {
    return new McpClientConfig(
        connectTimeout,
        listTimeout,
        callTimeout,
        d,
        backoffInitial,
        backoffMax,
        backoffFactor,
        backoffJitter,
        maxReconnectAttempts,
        maxStreamResumes,
        maxAuthChallenges,
        stderrBufferBytes,
        taskPollMin,
        taskPollMax,
        maxResultBytes);
  }

  public McpClientConfig withBackoff(
      Duration initial, Duration max, double factor, double jitter, int attempts) {
    return new McpClientConfig(
        connectTimeout,
        listTimeout,
        callTimeout,
        stopGrace,
        initial,
        max,
        factor,
        jitter,
        attempts,
        maxStreamResumes,
        maxAuthChallenges,
        stderrBufferBytes,
        taskPollMin,
        taskPollMax,
        maxResultBytes);
  }

  public McpClientConfig withMaxResultBytes(int bytes) {
    return new McpClientConfig(
        connectTimeout,
        listTimeout,
        callTimeout,
        stopGrace,
        backoffInitial,
        backoffMax,
        backoffFactor,
        backoffJitter,
        maxReconnectAttempts,
        maxStreamResumes,
        maxAuthChallenges,
        stderrBufferBytes,
        taskPollMin,
        taskPollMax,
        bytes);
  }
}
