package dev.flows.kernel.llm;

/**
 * A chat model, as the engine calls it: one request, one answer. Adapters (the worker's LangChain4j
 * one, a service's own) answer {@link LlmException} with {@code llm_error}, {@code
 * llm_rate_limited} or {@code llm_refused} carrying the provider's message; nothing else is thrown
 * for a refusal by the provider.
 */
public interface ModelPort {
  /** The provider's wire name as receipts show it ({@code openai}, {@code anthropic}, ...). */
  String provider();

  /** The provider's model id ({@code gpt-4o-mini}, ...). */
  String model();

  LlmAnswer chat(LlmRequest request) throws InterruptedException;

  /**
   * As {@link #chat(LlmRequest)}, streamed: the answer's text goes to {@code stream} as it arrives,
   * then the whole answer is returned as {@link #chat(LlmRequest)} would. A model that cannot
   * stream (the default) sends nothing to {@code stream}.
   */
  default LlmAnswer chat(LlmRequest request, LlmStream stream) throws InterruptedException {
    return chat(request);
  }
}
