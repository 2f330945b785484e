package dev.flows.sdk.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.llm.LlmAnswer;
import dev.flows.kernel.llm.LlmMessage;
import dev.flows.kernel.llm.LlmToolCall;
import dev.flows.kernel.llm.LlmToolSpec;
import dev.flows.kernel.llm.SpendLimit;
import dev.flows.sdk.AgentCall;
import dev.flows.sdk.ApprovalRule;
import dev.flows.sdk.Budget;
import dev.flows.sdk.ChildFailedException;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.McpResult;
import dev.flows.sdk.Pending;
import dev.flows.sdk.ProposedCall;
import dev.flows.sdk.Tools;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code f.agent(model)}: a model turn, then the tool calls it asked for, until it answers without
 * one. Each turn is an {@code f.llm} effect at its own position whose receipt holds the tool calls;
 * each tool call an {@code f.mcp} child at its own. Neither journals the conversation: it is
 * rebuilt in memory from those answers on every replay, so the journal grows by what each turn adds
 * (the model's message and the tools' results), never by the prompt sent again.
 */
final class AgentLoop {
  /** The turns an agent may take when it does not say. */
  static final int DEFAULT_MAX_TURNS = 10;

  /** Between a server's and its tool's name in the name a model is shown. */
  static final String SEPARATOR = "__";

  private AgentLoop() {}

  /** What an agent needs of its body. */
  record Body(DurableCtx ctx, ModelCalls models, Inventory inventory, FlowHeader header) {}

  static AgentCall<String> start(Body body, String model) {
    ModelCalls.Handle<String> call = (ModelCalls.Handle<String>) body.models().call(model);
    return new Handle<>(
        body, call, Optional.empty(), List.of(), DEFAULT_MAX_TURNS, Budget.unlimited());
  }

  /** An agent being written; immutable. */
  record Handle<T>(
      Body body,
      ModelCalls.Handle<T> call,
      Optional<String> instructions,
      List<Tools> tools,
      int maxTurns,
      Budget budget)
      implements AgentCall<T> {
    @Override
    public AgentCall<T> instructions(String text) {
      return new Handle<>(body, call, Optional.of(text), tools, maxTurns, budget);
    }

    @Override
    public AgentCall<T> tools(String... servers) {
      List<Tools> more = new ArrayList<>(tools);
      for (String s : servers) {
        more.add(Tools.all(s));
      }
      return new Handle<>(body, call, instructions, more, maxTurns, budget);
    }

    @Override
    public AgentCall<T> tools(Tools... selection) {
      List<Tools> more = new ArrayList<>(tools);
      more.addAll(List.of(selection));
      return new Handle<>(body, call, instructions, more, maxTurns, budget);
    }

    @Override
    public AgentCall<T> maxTurns(int n) {
      if (n < 1) {
        throw PublicError.of(
            new FlowsException(
                ErrorCode.INVALID_INPUT,
                "an agent needs at least one turn, got maxTurns(" + n + ")",
                described(call.model()),
                "pass maxTurns(1) or more"));
      }
      return new Handle<>(body, call, instructions, tools, n, budget);
    }

    @Override
    public <R> AgentCall<R> responseFormat(Class<R> type) {
      return new Handle<>(
          body,
          new ModelCalls.Handle<>(
              call.calls(), call.model(), call.messages(), call.tools(), type, true),
          instructions,
          tools,
          maxTurns,
          budget);
    }

    @Override
    public AgentCall<T> budget(Budget b) {
      return new Handle<>(body, call, instructions, tools, maxTurns, b);
    }

    @Override
    public AgentCall<T> approve(ApprovalRule rule) {
      return new ApprovingAgent<>(this, List.of()).approve(rule);
    }

    @Override
    public T run(Object input) {
      return PublicError.guard(() -> loop(this, input, call -> false));
    }
  }

  private static String described(String model) {
    return "f.agent(\"" + model + "\")";
  }

  static <T> T loop(Handle<T> h, Object input, ApprovalRule approvals) {
    Map<String, Inventory.Tool> offered = offered(h);
    List<LlmToolSpec> specs =
        offered.entrySet().stream()
            .map(
                e ->
                    new LlmToolSpec(
                        e.getKey(), e.getValue().description(), e.getValue().inputSchema()))
            .toList();
    List<LlmMessage> conversation = new ArrayList<>();
    h.instructions().ifPresent(i -> conversation.add(LlmMessage.system(i)));
    conversation.add(LlmMessage.user(text(input)));
    SpendLimit.Used used = SpendLimit.Used.NONE;
    for (int turn = 1; turn <= h.maxTurns(); turn++) {
      checkBudget(h, used);
      ModelCalls.Handle<T> ask =
          new ModelCalls.Handle<>(
              h.call().calls(),
              h.call().model(),
              conversation,
              specs,
              h.call().type(),
              h.call().structured());
      JsonNode memo = h.call().calls().memo(ask);
      LlmAnswer answer = ModelCalls.answerOf(memo, ask.model());
      used = h.call().calls().budgets().plus(used, ask.model(), memo);
      if (answer.toolCalls().isEmpty()) {
        return ModelCalls.value(answer.text(), ask);
      }
      conversation.add(LlmMessage.assistant(answer.text(), answer.toolCalls()));
      conversation.addAll(results(h.body(), offered, answer.toolCalls(), approvals));
    }
    throw new FlowsException(
        ErrorCode.BUDGET_EXHAUSTED,
        "the agent used all its "
            + h.maxTurns()
            + " turns (maxTurns) and the model still asked for tools",
        described(h.call().model()),
        "raise .maxTurns(n), or narrow the instructions or the tools");
  }

  /** Refuses the next turn when what the agent's turns used so far reaches its budget. */
  private static void checkBudget(Handle<?> h, SpendLimit.Used used) {
    SpendLimit limit = Budgets.limit(h.budget());
    String model = h.call().model();
    Budgets.requirePrice(limit, h.call().calls().budgets().prices(), model, described(model));
    if (limit.reachedBy(used)) {
      throw Budgets.exhausted("the agent", used, limit, described(h.call().model()));
    }
  }

  /**
   * The tool calls of one turn: every call issued first (so they run in parallel), then each result
   * awaited in order. A tool's failure, a tool the agent does not offer, or arguments that are not
   * a JSON object go back to the model as the tool's result, as text.
   */
  private static List<LlmMessage> results(
      Body body,
      Map<String, Inventory.Tool> offered,
      List<LlmToolCall> calls,
      ApprovalRule approvals) {
    List<Optional<Pending<McpResult>>> issued = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (LlmToolCall c : calls) {
      Inventory.Tool tool = offered.get(c.name());
      Optional<JsonNode> args = arguments(c.arguments());
      if (tool == null) {
        refused.add("error: no tool named '" + c.name() + "'; tools: " + offered.keySet());
        issued.add(Optional.empty());
      } else if (args.isEmpty()) {
        refused.add("error: the arguments are not a JSON object: " + c.arguments());
        issued.add(Optional.empty());
      } else {
        refused.add("");
        Ctx.McpTool t = body.ctx().mcp(tool.server()).tool(tool.name());
        if (approvals.requires(new ProposedCall(tool.server(), tool.name(), args.get()))) {
          t = t.needsApproval();
        }
        issued.add(Optional.of(t.callAsync(args.get())));
      }
    }
    List<LlmMessage> out = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      String text = issued.get(i).isPresent() ? result(issued.get(i).get()) : refused.get(i);
      out.add(LlmMessage.toolResult(calls.get(i), text));
    }
    return out;
  }

  /** A tool's result as a model reads it: its structured content, else its text, else output. */
  private static String result(Pending<McpResult> pending) {
    try {
      McpResult r = pending.get();
      if (r.structured().isPresent()) {
        return r.structured().get().toString();
      }
      return r.text().isEmpty() ? r.output().toString() : r.text();
    } catch (ChildFailedException e) {
      return "error (" + e.code() + "): " + e.getMessage();
    }
  }

  private static Optional<JsonNode> arguments(String text) {
    if (text.isBlank()) {
      return Optional.of(DurableCtx.MAPPER.createObjectNode());
    }
    try {
      JsonNode n = DurableCtx.MAPPER.readTree(text);
      return n != null && n.isObject() ? Optional.of(n) : Optional.empty();
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }

  private static String text(Object input) {
    if (input instanceof String s) {
      return s;
    }
    return DurableCtx.MAPPER.valueToTree(input).toString();
  }

  /**
   * The tools the agent offers, by the name the model is shown ({@code server__tool}, characters a
   * provider refuses in a function name as {@code _}), each checked against the header and the
   * frozen inventory before the first turn.
   */
  private static Map<String, Inventory.Tool> offered(Handle<?> h) {
    Map<String, Inventory.Tool> out = new LinkedHashMap<>();
    for (Tools t : h.tools()) {
      h.body().ctx().mcp(t.server());
      List<String> names = t.names().isEmpty() ? h.body().inventory().tools(t.server()) : t.names();
      for (String name : names) {
        Inventory.Tool tool =
            h.body()
                .inventory()
                .tool(t.server(), name)
                .orElseThrow(
                    () ->
                        new FlowsException(
                            ErrorCode.MCP_UNKNOWN_TOOL,
                            "server '%s' has no tool '%s' (tools: %s)"
                                .formatted(
                                    t.server(), name, h.body().inventory().tools(t.server())),
                            described(h.call().model()),
                            "offer one of the server's tools; `flows mcp tools "
                                + t.server()
                                + "` lists them"));
        out.put(modelName(t.server(), name), tool);
      }
    }
    return out;
  }

  static String modelName(String server, String tool) {
    return (server + SEPARATOR + tool).replaceAll("[^A-Za-z0-9_-]", "_");
  }
}
