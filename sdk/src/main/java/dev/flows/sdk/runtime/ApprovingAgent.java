package dev.flows.sdk.runtime;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.sdk.AgentCall;
import dev.flows.sdk.ApprovalRule;
import dev.flows.sdk.Budget;
import dev.flows.sdk.Tools;
import java.util.ArrayList;
import java.util.List;

/**
 * An agent some of whose tool calls wait for approval ({@code .approve(…)}): the agent it wraps,
 * and the rules; a call any rule accepts is made with {@code needsApproval()}. Immutable.
 */
record ApprovingAgent<T>(AgentLoop.Handle<T> agent, List<ApprovalRule> rules)
    implements AgentCall<T> {
  ApprovingAgent {
    rules = List.copyOf(rules);
  }

  private ApprovingAgent<T> with(AgentCall<T> changed) {
    return new ApprovingAgent<>((AgentLoop.Handle<T>) changed, rules);
  }

  @Override
  public AgentCall<T> instructions(String text) {
    return with(agent.instructions(text));
  }

  @Override
  public AgentCall<T> tools(String... servers) {
    return with(agent.tools(servers));
  }

  @Override
  public AgentCall<T> tools(Tools... selection) {
    return with(agent.tools(selection));
  }

  @Override
  public AgentCall<T> maxTurns(int n) {
    return with(agent.maxTurns(n));
  }

  @Override
  public AgentCall<T> budget(Budget budget) {
    return with(agent.budget(budget));
  }

  @Override
  public <R> AgentCall<R> responseFormat(Class<R> type) {
    return new ApprovingAgent<>((AgentLoop.Handle<R>) agent.responseFormat(type), rules);
  }

  @Override
  public AgentCall<T> approve(ApprovalRule rule) {
    if (rule == null) {
      throw PublicError.of(
          new FlowsException(
              ErrorCode.INVALID_INPUT,
              "approve needs a rule, got null",
              "f.agent(\"" + agent.call().model() + "\")",
              "pass approve(\"server\", \"tool\") or a lambda on the proposed call"));
    }
    List<ApprovalRule> more = new ArrayList<>(rules);
    more.add(rule);
    return new ApprovingAgent<>(agent, more);
  }

  @Override
  public T run(Object input) {
    return PublicError.guard(
        () -> AgentLoop.loop(agent, input, call -> rules.stream().anyMatch(r -> r.requires(call))));
  }
}
