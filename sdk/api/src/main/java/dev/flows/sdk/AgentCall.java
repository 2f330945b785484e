package dev.flows.sdk;

/**
 * An agent being written: {@code f.agent("smart").instructions("You triage tickets.")
 * .tools("tickets", "payments").maxTurns(8).run(ticket)}. Immutable: each method answers a new
 * agent. A durable loop: each turn asks the model once (an {@code f.llm} effect, journaled with its
 * receipt, which holds the tool calls the model asked for); each tool call it asks for is an {@code
 * f.mcp} call (issued together when a turn asks for several, so they run in parallel), its result,
 * or its error as text, going back to the model; the loop ends when the model answers without
 * asking for a tool. A replay answers every journaled turn and tool call from the journal.
 */
public interface AgentCall<T> {
  /** The system message every turn starts with. */
  AgentCall<T> instructions(String text);

  /** Every tool of each of these servers (declared in the header's {@code tools.mcp}). */
  AgentCall<T> tools(String... servers);

  /** The listed tools of a server ({@code Tools.of("payments", "refund")}). */
  AgentCall<T> tools(Tools... selection);

  /**
   * Calls of {@code tools} of {@code server} (every tool of it when none is named) wait for a
   * person's approval before they are sent: the call's step parks {@code input_required} with the
   * proposed arguments, and {@code flows runs answer RUN STEP '{"approve":true}'} | {@code
   * '{"deny":"reason"}'} | {@code '{"args":{…}}'} (or {@code Flows.answer}) decides. A denial goes
   * back to the model as the tool's error ({@code tool_call_denied}); the loop goes on.
   */
  default AgentCall<T> approve(String server, String... tools) {
    return approve(ApprovalRule.of(server, tools));
  }

  /** Calls {@code rule} accepts wait for approval, as {@link #approve(String, String...)}. */
  AgentCall<T> approve(ApprovalRule rule);

  /** At most {@code n} model turns (default 10); one more fails {@code budget_exhausted}. */
  AgentCall<T> maxTurns(int n);

  /**
   * What the agent may spend ({@code Budget.tokens(50_000).turns(8)}), checked before every turn
   * against its journaled usage; past it: {@code budget_exhausted} with what it used.
   */
  AgentCall<T> budget(Budget budget);

  /**
   * The final answer as a {@code type}: its JSON schema goes to the model with every turn, and the
   * last turn's text is read into it (one that does not fit fails {@code llm_error}).
   */
  <R> AgentCall<R> responseFormat(Class<R> type);

  /**
   * Runs the loop on {@code input} (the first user message: a string as it is, anything else as its
   * JSON) and answers the model's final answer. A turn's refusal fails as {@code f.llm} does.
   */
  T run(Object input);

  /** As {@link #run(Object)} with {@link #responseFormat(Class)}. */
  default <R> R run(Object input, Class<R> type) {
    return responseFormat(type).run(input);
  }
}
