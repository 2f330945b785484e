package dev.flows.worker.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.model.output.FinishReason;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The test kit's scripted model server as LangChain4j's own OpenAI clients see it. */
class ScriptedModelServerTest {
  @Test
  void aToolCallTurnReachesTheClientAsToolExecutionRequestsThenTheNextTurnAsText()
      throws Exception {
    ScriptedModel script =
        ScriptedModel.of(
            Turn.toolCalls(
                new ScriptedModel.ToolCall(
                    "call_1",
                    "tickets__classify",
                    JsonNodeFactory.instance.objectNode().put("text", "printer"))),
            Turn.text("hardware", 30, 1));
    try (ScriptedModelServer server = ScriptedModelServer.start(script)) {
      OpenAiChatModel model =
          OpenAiChatModel.builder()
              .baseUrl(server.baseUrl())
              .apiKey("none")
              .modelName("scripted")
              .maxRetries(0)
              .build();
      ChatResponse first = model.chat(UserMessage.from("classify"));
      ChatResponse second = model.chat(UserMessage.from("and now?"));

      List<ToolExecutionRequest> calls = first.aiMessage().toolExecutionRequests();
      assertThat(calls).hasSize(1);
      assertThat(calls.getFirst().name()).isEqualTo("tickets__classify");
      assertThat(calls.getFirst().arguments()).isEqualTo("{\"text\":\"printer\"}");
      assertThat(first.finishReason()).isEqualTo(FinishReason.TOOL_EXECUTION);
      assertThat(second.aiMessage().text()).isEqualTo("hardware");
      assertThat(second.tokenUsage().inputTokenCount()).isEqualTo(30);
    }
  }

  @Test
  void aStreamedTurnArrivesAsServerSentEventsWithItsUsage() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(ScriptedModel.of(Turn.text("streamed answer", 8, 2)))) {
      OpenAiStreamingChatModel model =
          OpenAiStreamingChatModel.builder()
              .baseUrl(server.baseUrl())
              .apiKey("none")
              .modelName("scripted")
              .build();
      StringBuilder partial = new StringBuilder();
      CompletableFuture<ChatResponse> done = new CompletableFuture<>();
      model.chat(
          "go",
          new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String text) {
              partial.append(text);
            }

            @Override
            public void onCompleteResponse(ChatResponse r) {
              done.complete(r);
            }

            @Override
            public void onError(Throwable t) {
              done.completeExceptionally(t);
            }
          });
      ChatResponse r = done.get(20, TimeUnit.SECONDS);

      assertThat(partial.toString()).isEqualTo("streamed answer");
      assertThat(r.aiMessage().text()).isEqualTo("streamed answer");
      assertThat(r.tokenUsage().outputTokenCount()).isEqualTo(2);
      assertThat(server.requests().getFirst().path("stream").asBoolean()).isTrue();
    }
  }

  @Test
  void aRequestPastTheScriptsEndIsAnswered500NamingTheTurn() throws Exception {
    try (ScriptedModelServer server = ScriptedModelServer.start(ScriptedModel.of())) {
      var http = java.net.http.HttpClient.newHttpClient();
      var response =
          http.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create(server.baseUrl() + "/chat/completions"))
                  .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}"))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(500);
      assertThat(response.body()).contains("the script has no turn 1");
    }
  }
}
