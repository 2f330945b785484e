package dev.flows.mcp.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.mcp.testkit.ScriptedModel.ToolCall;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A model that answers from the request's conversation rather than from the order requests came in,
 * so the same request always gets the same answer: a turn asked again (after a worker died during
 * it) is answered as it was the first time, and conversations of many runs interleave freely on one
 * server. {@link ScriptedModelServer#start(ConversationModel, int)} serves it.
 *
 * <p>The rules, keyed on how many assistant messages the conversation holds ({@code k}): while
 * {@code k} is below the number of planned turns, the answer asks for turn {@code k}'s tools, all
 * in one message (parallel calls), the {@code j}th with the arguments {@code {"text":
 * "<user>/<k>.<j>"}} ({@code <user>}: the text of the conversation's first user message) and the id
 * {@code call_<k>_<j>}; after the last planned turn, the text {@link #answer(String, List)} of the
 * user's message and every tool result in the conversation, in order.
 */
public final class ConversationModel {
  /** The usage every answer reports: a conversation-aware answer does not depend on it. */
  private static final long INPUT_TOKENS = 10;

  private static final long OUTPUT_TOKENS = 5;

  private final List<List<String>> turns;
  private final Duration latency;

  private ConversationModel(List<List<String>> turns, Duration latency) {
    this.turns = turns.stream().map(List::copyOf).toList();
    this.latency = latency;
  }

  /**
   * Asks for the tools of {@code turns} (each turn's tools by the name the model is shown, e.g.
   * {@code idem__ledger}), one turn per answer, then answers with the results.
   */
  public static ConversationModel of(List<List<String>> turns) {
    for (List<String> t : turns) {
      if (t.isEmpty()) {
        throw new IllegalArgumentException("a planned turn asks for at least one tool: " + turns);
      }
    }
    return new ConversationModel(turns, Duration.ZERO);
  }

  /** The same rules, each answer given after {@code d}: time for a fault to land mid-turn. */
  public ConversationModel withLatency(Duration d) {
    return new ConversationModel(turns, d);
  }

  /** How long the server waits before it sends each answer. */
  public Duration latency() {
    return latency;
  }

  /** The final answer to {@code user} after tool results {@code results}, in order. */
  public static String answer(String user, List<String> results) {
    return "answer to " + user + ": " + String.join(" | ", results);
  }

  /** The arguments' {@code text} of turn {@code k}'s {@code j}th call for {@code user}. */
  public static String argument(String user, int k, int j) {
    return user + "/" + k + "." + j;
  }

  /** The answer to one chat-completions request body. */
  public Turn answer(JsonNode request) {
    String user = "";
    int assistants = 0;
    List<String> results = new ArrayList<>();
    for (JsonNode m : request.path("messages")) {
      switch (m.path("role").asText()) {
        case "user" -> user = user.isEmpty() ? content(m) : user;
        case "assistant" -> assistants++;
        case "tool" -> results.add(content(m));
        default -> {}
      }
    }
    if (assistants >= turns.size()) {
      return Turn.text(answer(user, results), INPUT_TOKENS, OUTPUT_TOKENS);
    }
    List<String> tools = turns.get(assistants);
    List<ToolCall> calls = new ArrayList<>();
    for (int j = 0; j < tools.size(); j++) {
      calls.add(
          new ToolCall(
              "call_" + assistants + "_" + j,
              tools.get(j),
              ScriptedModel.object().put("text", argument(user, assistants, j))));
    }
    return new ScriptedModel.ToolCalls(calls, INPUT_TOKENS, OUTPUT_TOKENS);
  }

  /** A message's text: a string, or the text parts of a content array joined. */
  private static String content(JsonNode m) {
    JsonNode c = m.path("content");
    if (c.isTextual()) {
      return c.asText();
    }
    StringBuilder out = new StringBuilder();
    for (JsonNode part : c) {
      out.append(part.path("text").asText());
    }
    return out.toString();
  }
}
