package dev.flows.kernel.llm;

/** Tokens one model call used, as the provider counted them (0 when it did not say). */
public record LlmUsage(long inputTokens, long outputTokens) {
  public LlmUsage {
    if (inputTokens < 0 || outputTokens < 0) {
      throw new IllegalArgumentException("token counts are not negative");
    }
  }
}
