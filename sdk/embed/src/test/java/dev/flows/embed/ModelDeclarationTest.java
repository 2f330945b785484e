package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.ModelClient;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Models declared in code ({@link Model}): flows.json's rules, refused before any database. */
class ModelDeclarationTest {
  private static final String NOWHERE = "jdbc:postgresql://127.0.0.1:1/none";

  @Test
  void aDeclarationBreakingFlowsJsonsRulesIsRefusedConfigInvalidAtItsModel() {
    assertRefused(() -> Model.of("2fast", "openai", "gpt-4o-mini"), "model 2fast");
    assertRefused(() -> Model.of("fast", "mistral", "large"), "model fast");
    assertRefused(() -> Model.of("fast", "openai", " "), "model fast");
    assertRefused(
        () -> Model.of("fast", "openai", "gpt").baseUrl(URI.create("ftp://models.example/v1")),
        "model fast");
    assertRefused(
        () -> Model.of("fast", "openai", "gpt").baseUrl(URI.create("https://u:p@models.example")),
        "model fast");
    assertRefused(() -> Model.of("fast", "openai", "gpt").timeout(Duration.ZERO), "model fast");
    assertRefused(
        () ->
            Flows.builder()
                .jdbcUrl(NOWHERE)
                .model(Model.of("fast", "openai-compatible", "scripted"))
                .build(),
        "model fast");
  }

  @Test
  void aNameGivenByADeclarationAndByAClientOrFlowsJsonIsRefused(@TempDir Path dir)
      throws Exception {
    ModelClient client = (messages, schema) -> ModelClient.Answer.of("hi", 1, 1);
    Model fast = Model.of("fast", "openai", "gpt-4o-mini");
    assertRefused(() -> Flows.builder().model(fast).model("fast", client), "Flows.builder()");
    assertRefused(() -> Flows.builder().model("fast", client).model(fast), "Flows.builder()");
    assertRefused(() -> Flows.builder().model(fast).model(fast), "Flows.builder()");
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"models\": {\"fast\": {\"provider\": \"openai\", \"model\": \"gpt-4o-mini\"}}}");
    assertThatThrownBy(() -> Flows.builder().jdbcUrl(NOWHERE).model(fast).flowsJson(dir).build())
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire());
              assertThat(e.getMessage()).contains("given in code and in");
            });
  }

  private static void assertRefused(Runnable r, String place) {
    assertThatThrownBy(r::run)
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire());
              assertThat(e.place()).hasValue(place);
            });
  }
}
