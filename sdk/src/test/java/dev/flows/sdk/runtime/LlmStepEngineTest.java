package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.llm.ModelPort;
import dev.flows.kernel.spec.RunSpecParser;
import dev.flows.sdk.ModelClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A spec's {@code llm} step run by the engine's own worker, the model given in code. */
class LlmStepEngineTest {
  /** The journal the engine runs on; Postgres in the subclass. */
  protected Journal journal() {
    return new InMemoryJournal(Clock.systemUTC());
  }

  @Test
  void anLlmStepOfASpecRunsOnTheEnginesWorkerAndItsOutputIsTheReceipt() throws Exception {
    Journal journal = journal();
    AtomicInteger asked = new AtomicInteger();
    try (FlowsEngine engine = EngineEndToEndTest.engine(journal, SdkConfig.DEFAULTS)) {
      engine
          .models()
          .register(
              "small",
              new ClientModelPort(
                  "small",
                  (messages, schema) -> {
                    asked.incrementAndGet();
                    return ModelClient.Answer.of("Welcome, " + messages.getFirst().text(), 6, 2);
                  }));
      engine.startWorker();
      RunRef run =
          engine
              .journal()
              .admit(
                  StartRun.of(
                      "llm-step-" + System.nanoTime(),
                      RunSpecParser.parse(
                          """
                          {"version": "0.1.0", "name": "greet", "steps": [
                            {"id": "greet", "llm": {"prompt": "Ann", "model": "small"}}]}
                          """)),
                  Admit.queued())
              .runId();
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, run);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode receipt = done.steps().getFirst().output().orElseThrow();
      assertThat(receipt.path("type").asText()).isEqualTo("llm");
      assertThat(receipt.path("output").asText()).isEqualTo("Welcome, Ann");
      assertThat(receipt.path("provider").asText()).isEqualTo("code");
      assertThat(receipt.path("usage").path("inputTokens").asLong()).isEqualTo(6);
      assertThat(receipt.path("usage").path("outputTokens").asLong()).isEqualTo(2);
      assertThat(asked).hasValue(1);
    }
  }

  @Test
  void aWorkerGivenFlowDirectoriesCallsTheModelsTheirFlowsJsonDeclares(@TempDir Path dir)
      throws Exception {
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"models\": {\"fast\": {\"provider\": \"ollama\", \"model\": \"llama3.2\"}}}");
    Path flows = Files.createDirectories(dir.resolve("flows"));
    try (FlowsEngine engine = EngineEndToEndTest.engine(journal(), SdkConfig.DEFAULTS)) {
      assertThat(engine.models().models().byName()).isEmpty();
      engine.acceptSourcesUnder(List.of(flows));
      ModelPort fast = engine.models().models().byName().get("fast");
      assertThat(fast.provider()).isEqualTo("ollama");
      assertThat(fast.model()).isEqualTo("llama3.2");
    }
  }
}
