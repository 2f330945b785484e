package dev.flows.worker.llm;

import dev.flows.kernel.llm.LlmAnswer;
import dev.flows.kernel.llm.LlmException;
import dev.flows.kernel.llm.LlmRequest;
import dev.flows.kernel.llm.LlmStream;
import dev.flows.kernel.llm.ModelPort;
import java.time.Duration;

/**
 * One model call as the engine makes it: a rate-limited call ({@code llm_rate_limited}) is asked
 * again after the provider's Retry-After ({@link #DEFAULT_RETRY_AFTER} when it sent none, never
 * more than {@link #MAX_RETRY_AFTER}), at most {@link #RATE_LIMIT_RETRIES} times; then the last
 * refusal is thrown. Nothing else is retried here.
 */
public final class LlmCalls {
  public static final int RATE_LIMIT_RETRIES = 3;
  public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);
  public static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(60);

  /** How the wait happens (a test's fake records it). */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;

    Sleeper THREAD = d -> Thread.sleep(d.toMillis());
  }

  /** A stream that forgets what it was sent when the call is asked again. */
  public interface Restartable extends LlmStream {
    void restart();
  }

  private final Sleeper sleeper;

  public LlmCalls(Sleeper sleeper) {
    this.sleeper = sleeper;
  }

  public static LlmCalls standard() {
    return new LlmCalls(Sleeper.THREAD);
  }

  public LlmAnswer call(ModelPort model, LlmRequest request) throws InterruptedException {
    return call(model, request, LlmStream.NONE);
  }

  /**
   * As {@link #call(ModelPort, LlmRequest)}, streamed into {@code stream}; an attempt asked again
   * after a rate limit streams from its start again ({@code stream} is told by {@link
   * Restartable#restart}).
   */
  public LlmAnswer call(ModelPort model, LlmRequest request, LlmStream stream)
      throws InterruptedException {
    for (int retry = 0; ; retry++) {
      try {
        if (retry > 0 && stream instanceof Restartable r) {
          r.restart();
        }
        return stream == LlmStream.NONE ? model.chat(request) : model.chat(request, stream);
      } catch (LlmException e) {
        if (e.code() != dev.flows.kernel.ErrorCode.LLM_RATE_LIMITED
            || retry >= RATE_LIMIT_RETRIES) {
          throw e;
        }
        Duration wait = e.retryAfter().orElse(DEFAULT_RETRY_AFTER);
        sleeper.sleep(wait.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : wait);
      }
    }
  }
}
