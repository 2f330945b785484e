package dev.flows.kernel.llm;

/**
 * Where a streaming model call sends its answer's text as it arrives, one piece at a time, before
 * the whole answer is returned. Called on the model client's thread.
 */
@FunctionalInterface
public interface LlmStream {
  /** The next piece of the answer's text. */
  void delta(String text);

  /** Takes nothing: the call is not watched. */
  LlmStream NONE = text -> {};
}
