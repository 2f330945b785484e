package dev.flows.sdk;

/**
 * A model call being written: {@code f.llm("fast").system("You triage tickets.").user(text)
 * .responseFormat(Verdict.class).call()}. Immutable: each method answers a new call. The call is an
 * effect: recorded with its idempotency key before the model is asked, confirmed with its receipt
 * after; a replay answers from the journal without asking the model, and a call recorded by an
 * attempt that died before confirming it is asked again (a model call has no outside effect).
 */
public interface LlmCall<T> {
  /** Adds a system message. */
  LlmCall<T> system(String text);

  /** Adds a user message. */
  LlmCall<T> user(String text);

  /**
   * Asks for structured output: the JSON schema of {@code type} (a record, or a class with public
   * fields) goes to the model, and the answer is read into a {@code type}; an answer that does not
   * fit fails {@code llm_error}.
   */
  <R> LlmCall<R> responseFormat(Class<R> type);

  /**
   * What this one call may spend ({@code Budget.tokens(2_000).costUsd(0.01)}): judged on its
   * receipt, so an answer past it fails {@code budget_exhausted} (its usage is journaled and counts
   * for the agent and run around it). The budgets of the agent and run around the call are checked
   * before it is sent.
   */
  LlmCall<T> budget(Budget budget);

  /**
   * Asks the model (or the journal, on replay). Fails {@code llm_undeclared_model} for a model the
   * header does not declare, {@code llm_error}, {@code llm_rate_limited} (after waiting as the
   * provider asked) or {@code llm_refused} with the provider's message.
   */
  LlmResult<T> call();
}
