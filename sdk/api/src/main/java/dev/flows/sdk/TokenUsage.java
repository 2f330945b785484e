package dev.flows.sdk;

/** Tokens one model call used, as the provider counted them (0 when it did not say). */
public record TokenUsage(long inputTokens, long outputTokens) {
  public TokenUsage {
    if (inputTokens < 0 || outputTokens < 0) {
      throw new IllegalArgumentException("token counts are not negative");
    }
  }
}
