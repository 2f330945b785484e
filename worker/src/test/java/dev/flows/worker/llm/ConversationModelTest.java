package dev.flows.worker.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.mcp.testkit.ConversationModel;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The conversation-aware model as LangChain4j's OpenAI client sees it: each answer follows from the
 * request's conversation alone, so a turn asked again gets the same answer and conversations
 * interleave on one server.
 */
class ConversationModelTest {
  private static final ConversationModel MODEL =
      ConversationModel.of(List.of(List.of("idem__echo", "idem__ledger"), List.of("idem__echo")));

  private static OpenAiChatModel client(ScriptedModelServer server) {
    return OpenAiChatModel.builder()
        .baseUrl(server.baseUrl())
        .apiKey("none")
        .modelName("scripted")
        .maxRetries(0)
        .build();
  }

  /** The conversation after {@code answer}, each of its tool calls answered {@code result(id)}. */
  private static List<ChatMessage> answered(List<ChatMessage> before, AiMessage answer) {
    List<ChatMessage> out = new ArrayList<>(before);
    out.add(answer);
    for (ToolExecutionRequest r : answer.toolExecutionRequests()) {
      out.add(ToolExecutionResultMessage.from(r, "result of " + r.arguments()));
    }
    return out;
  }

  @Test
  void eachPlannedTurnAsksForItsToolsThenTheAnswerIsBuiltFromEveryResultInOrder() throws Exception {
    try (ScriptedModelServer server = ScriptedModelServer.start(MODEL, 0)) {
      OpenAiChatModel model = client(server);
      List<ChatMessage> conversation = List.of(UserMessage.from("ticket-7"));

      AiMessage first = model.chat(conversation).aiMessage();
      conversation = answered(conversation, first);
      AiMessage second = model.chat(conversation).aiMessage();
      conversation = answered(conversation, second);
      ChatResponse last = model.chat(conversation);

      assertThat(first.toolExecutionRequests())
          .extracting(ToolExecutionRequest::id, ToolExecutionRequest::name)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("call_0_0", "idem__echo"),
              org.assertj.core.groups.Tuple.tuple("call_0_1", "idem__ledger"));
      assertThat(first.toolExecutionRequests().getFirst().arguments())
          .isEqualTo("{\"text\":\"ticket-7/0.0\"}");
      assertThat(second.toolExecutionRequests())
          .extracting(ToolExecutionRequest::arguments)
          .containsExactly("{\"text\":\"ticket-7/1.0\"}");
      assertThat(last.aiMessage().hasToolExecutionRequests()).isFalse();
      assertThat(last.aiMessage().text())
          .isEqualTo(
              ConversationModel.answer(
                  "ticket-7",
                  List.of(
                      "result of {\"text\":\"ticket-7/0.0\"}",
                      "result of {\"text\":\"ticket-7/0.1\"}",
                      "result of {\"text\":\"ticket-7/1.0\"}")));
    }
  }

  @Test
  void aTurnAskedAgainAfterOtherConversationsGetsTheSameAnswer() throws Exception {
    try (ScriptedModelServer server = ScriptedModelServer.start(MODEL, 0)) {
      OpenAiChatModel model = client(server);
      List<ChatMessage> a = List.of(UserMessage.from("a"));
      AiMessage aFirst = model.chat(a).aiMessage();
      List<ChatMessage> aAfter = answered(a, aFirst);
      String aSecond = model.chat(aAfter).aiMessage().toolExecutionRequests().toString();

      // Another run's conversation comes in between, then run a's second turn is asked again.
      model.chat(List.of(UserMessage.from("b")));
      String aSecondAgain = model.chat(aAfter).aiMessage().toolExecutionRequests().toString();

      assertThat(aSecondAgain).isEqualTo(aSecond).contains("a/1.0");
      assertThat(server.requests()).hasSize(4);
    }
  }

  @Test
  void aPlanWithAnEmptyTurnIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ConversationModel.of(List.of(List.of())))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
