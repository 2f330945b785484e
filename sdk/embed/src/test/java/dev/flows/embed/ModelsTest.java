package dev.flows.embed;

import static dev.flows.embed.TestFlows.JSON;
import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.LlmResult;
import dev.flows.sdk.ModelClient;
import dev.flows.sdk.runtime.PreflightException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Models given in code or declared in flows.json, called by {@code f.llm} on Postgres. */
class ModelsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Asks model "fast" to greet its input's name. */
  static final class Greeter implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("greeter").models("fast").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      LlmResult<String> r =
          f.llm("fast").system("Greet briefly.").user(input.path("name").asText()).call();
      return JSON.objectNode()
          .put("text", r.text())
          .put("provider", r.receipt().path("provider").asText())
          .put("outputTokens", r.usage().outputTokens());
    }
  }

  @Test
  void aFlowDeclaringAModelNoOneGaveIsRefusedAtBuildWithoutTouchingTheDatabase() {
    assertThatThrownBy(
            () ->
                Flows.builder()
                    .jdbcUrl("jdbc:postgresql://127.0.0.1:1/none")
                    .register(new Greeter())
                    .build())
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.LLM_UNDECLARED_MODEL.wire());
              assertThat(((PreflightException) e.getCause()).problems()).hasSize(1);
            });
  }

  @Test
  void aModelGivenTwiceOrInCodeAndInFlowsJsonIsRefusedConfigInvalid(@TempDir Path dir)
      throws Exception {
    ModelClient client = (messages, schema) -> ModelClient.Answer.of("hi", 1, 1);
    assertThatThrownBy(() -> Flows.builder().model("fast", client).model("fast", client))
        .isInstanceOfSatisfying(
            FlowsError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire()));
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"models\": {\"fast\": {\"provider\": \"openai\", \"model\": \"gpt-4o-mini\"}}}");
    assertThatThrownBy(
            () ->
                Flows.builder()
                    .jdbcUrl("jdbc:postgresql://127.0.0.1:1/none")
                    .flowsJson(dir)
                    .model("fast", client)
                    .build())
        .isInstanceOfSatisfying(
            FlowsError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire()));
  }

  @Test
  void aModelGivenInCodeAnswersABodysCallOnceAndItsReceiptNamesItsProvider() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("embed_models_code");
    AtomicInteger asked = new AtomicInteger();
    ModelClient client =
        new ModelClient() {
          @Override
          public Answer chat(List<Message> messages, java.util.Optional<JsonNode> schema) {
            asked.incrementAndGet();
            return Answer.of("Hello, " + messages.getLast().text() + "!", 9, 3);
          }

          @Override
          public String provider() {
            return "in-house";
          }
        };
    try (Flows flows =
        withWorker(on(db)).register(new Greeter()).model("fast", client).migrate(true).build()) {
      JsonNode out = flows.start(Greeter.class, JSON.objectNode().put("name", "Ann")).result(WAIT);
      assertThat(out.path("text").asText()).isEqualTo("Hello, Ann!");
      assertThat(out.path("provider").asText()).isEqualTo("in-house");
      assertThat(out.path("outputTokens").asLong()).isEqualTo(3);
    }
    assertThat(asked).hasValue(1);
  }

  @Test
  void aModelFlowsJsonDeclaresIsCalledThroughLangChain4jsOpenAiClient(@TempDir Path dir)
      throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("embed_models_json");
    try (ScriptedModelServer server =
        ScriptedModelServer.start(ScriptedModel.of(ScriptedModel.Turn.text("Hi Bo", 20, 2)))) {
      Files.writeString(
          dir.resolve("flows.json"),
          "{\"models\": {\"fast\": {\"provider\": \"openai-compatible\", \"model\": \"scripted\","
              + " \"baseUrl\": \""
              + server.baseUrl()
              + "\"}}}");
      try (Flows flows =
          withWorker(on(db)).register(new Greeter()).flowsJson(dir).migrate(true).build()) {
        JsonNode out = flows.start(Greeter.class, JSON.objectNode().put("name", "Bo")).result(WAIT);
        assertThat(out.path("text").asText()).isEqualTo("Hi Bo");
        assertThat(out.path("provider").asText()).isEqualTo("openai-compatible");
      }
      assertThat(server.requests()).hasSize(1);
      assertThat(server.requests().getFirst().path("messages").toString())
          .contains("Greet briefly.")
          .contains("Bo");
    }
  }
}
