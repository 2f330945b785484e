package dev.flows.kernel.llm;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.time.Duration;
import java.util.Optional;

/**
 * A model call the provider did not answer: {@code llm_rate_limited} (with the provider's
 * Retry-After when it sent one), {@code llm_refused} (its content filter stopped the answer) or
 * {@code llm_error} (anything else). The message is the provider's.
 */
public final class LlmException extends FlowsException {
  private final transient Optional<Duration> retryAfter;

  private LlmException(
      ErrorCode code, String message, String model, Optional<Duration> retryAfter, Throwable c) {
    super(code, message, "model " + model, fixOf(code), code.retryable(), c);
    this.retryAfter = retryAfter;
  }

  public static LlmException rateLimited(
      String model, String message, Optional<Duration> retryAfter, Throwable cause) {
    return new LlmException(ErrorCode.LLM_RATE_LIMITED, message, model, retryAfter, cause);
  }

  public static LlmException refused(String model, String message) {
    return new LlmException(ErrorCode.LLM_REFUSED, message, model, Optional.empty(), null);
  }

  public static LlmException error(String model, String message, Throwable cause) {
    return new LlmException(ErrorCode.LLM_ERROR, message, model, Optional.empty(), cause);
  }

  /** How long the provider asked to wait before the next call, when it said. */
  public Optional<Duration> retryAfter() {
    return retryAfter;
  }

  private static String fixOf(ErrorCode code) {
    return switch (code) {
      case LLM_RATE_LIMITED -> "wait, or raise the provider's rate limit";
      case LLM_REFUSED -> "change the prompt: the provider's content filter refused it";
      default -> "check the model's declaration in flows.json and the provider's status";
    };
  }
}
