package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelProvider;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.LlmResult;
import dev.flows.sdk.ModelClient;
import dev.flows.sdk.runtime.DurableFlowTest.TestFlow;
import dev.flows.worker.llm.LlmCalls;
import dev.flows.worker.llm.ModelRegistry;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@code f.llm}: a model call journaled as an effect of the body, replayed from the journal. */
class ModelCallsTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final FlowHeader HEADER =
      FlowHeader.named("triage").version("1").models("fast").build();

  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final FlowResolver resolver = new FlowResolver();
  private final ModelRegistry registry = new ModelRegistry(name -> Optional.of("sk-test"));

  public record Verdict(String category, int priority) {}

  private MiniWorker worker() {
    return new MiniWorker(
        journal,
        new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS)
            .models(new BodyModels(registry, new LlmCalls(d -> {}))));
  }

  private RunRef start(TestFlow flow) {
    return DurableFlowTest.start(journal, resolver, flow, JSON.objectNode(), SdkConfig.DEFAULTS);
  }

  private static ModelClient counting(AtomicInteger asked, String answer) {
    return (messages, schema) -> {
      asked.incrementAndGet();
      return ModelClient.Answer.of(answer + " #" + asked.get(), 7, 3);
    };
  }

  @Test
  void aModelCallAnswersItsTextUsageAndReceiptAndIsJournaledRecordedThenConfirmed()
      throws Exception {
    AtomicInteger asked = new AtomicInteger();
    registry.register("fast", new ClientModelPort("fast", counting(asked, "billing")));
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  LlmResult<String> r =
                      f.llm("fast").system("You triage.").user("printer on fire").call();
                  return JSON.objectNode()
                      .put("text", r.text())
                      .put("in", r.usage().inputTokens())
                      .put("key", r.idempotencyKey())
                      .put("type", r.receipt().path("type").asText());
                }));
    RunSnapshot done = DurableFlowTest.drive(journal, worker(), root, () -> false);

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    JsonNode out = done.steps().getFirst().output().orElseThrow();
    assertThat(out.path("text").asText()).isEqualTo("billing #1");
    assertThat(out.path("in").asLong()).isEqualTo(7);
    assertThat(out.path("type").asText()).isEqualTo("llm");
    assertThat(out.path("key").asText()).hasSize(64);
    assertThat(journal.entries(root))
        .extracting(r -> r.entry().type())
        .containsSubsequence("effect.recorded", "effect.confirmed");
  }

  @Test
  void aReplayAnswersFromTheJournalWithoutAskingTheModelAgain() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    registry.register("fast", new ClientModelPort("fast", counting(asked, "billing")));
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch answered = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  String text = f.llm("fast").user("classify").call().text();
                  if (runs.incrementAndGet() == 1) {
                    // The first attempt's worker dies here, after the call was confirmed.
                    answered.countDown();
                    never.await();
                  }
                  return JSON.objectNode().put("text", text);
                }));
    MiniWorker w = worker();
    DurableFlowTest.drive(journal, w, root, () -> answered.getCount() == 0);
    RunSnapshot done = DurableFlowTest.killAndReplay(journal, clock, w, root);

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(runs).hasValue(2);
    assertThat(done.steps().getFirst().output().orElseThrow().path("text").asText())
        .isEqualTo("billing #1");
    assertThat(asked).hasValue(1);
  }

  @Test
  void aCallRecordedButNeverConfirmedBeforeACrashIsAskedAgainUnderTheSameKey() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    CountDownLatch inCall = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    registry.register(
        "fast",
        new ClientModelPort(
            "fast",
            (messages, schema) -> {
              if (asked.incrementAndGet() == 1) {
                inCall.countDown();
                never.await();
              }
              return ModelClient.Answer.of("second answer", 5, 2);
            }));
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  LlmResult<String> r = f.llm("fast").user("classify").call();
                  return JSON.objectNode().put("text", r.text()).put("key", r.idempotencyKey());
                }));
    MiniWorker w = worker();
    DurableFlowTest.drive(journal, w, root, () -> inCall.getCount() == 0);
    String recordedKey =
        journal.entries(root).stream()
            .map(r -> r.entry())
            .filter(e -> e instanceof JournalEntry.EffectRecorded)
            .map(e -> ((JournalEntry.EffectRecorded) e).idempotencyKey())
            .findFirst()
            .orElseThrow();
    RunSnapshot done = DurableFlowTest.killAndReplay(journal, clock, w, root);

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(done.steps().getFirst().output().orElseThrow().path("text").asText())
        .isEqualTo("second answer");
    assertThat(done.steps().getFirst().output().orElseThrow().path("key").asText())
        .isEqualTo(recordedKey);
    assertThat(asked).hasValue(2);
  }

  @Test
  void aResponseFormatSendsTheRecordsSchemaAndReadsTheAnswerIntoIt() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(Turn.text("{\"category\":\"hardware\",\"priority\":2}", 40, 9)))) {
      registry.declare(
          new ModelConfig(
              "fast",
              ModelProvider.OPENAI_COMPATIBLE,
              "gpt-scripted",
              Optional.of(URI.create(server.baseUrl())),
              Optional.empty(),
              Duration.ofSeconds(10)));
      RunRef root =
          start(
              new TestFlow(
                  HEADER,
                  (f, in) -> {
                    Verdict v =
                        f.llm("fast")
                            .user("printer on fire")
                            .responseFormat(Verdict.class)
                            .call()
                            .value();
                    return JSON.objectNode()
                        .put("category", v.category())
                        .put("priority", v.priority());
                  }));
      RunSnapshot done = DurableFlowTest.drive(journal, worker(), root, () -> false);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().path("category").asText())
          .isEqualTo("hardware");
      assertThat(done.steps().getFirst().output().orElseThrow().path("priority").asInt())
          .isEqualTo(2);
      JsonNode format = server.requests().getFirst().path("response_format");
      assertThat(format.path("type").asText()).isEqualTo("json_schema");
      assertThat(format.path("json_schema").path("schema").path("properties").has("priority"))
          .isTrue();
    }
  }

  @Test
  void aProviderRefusalIsJournaledAndThrownAgainOnReplayWithoutAskingAgain() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    registry.register(
        "fast",
        new ClientModelPort(
            "fast",
            (messages, schema) -> {
              asked.incrementAndGet();
              return new ModelClient.Answer(
                  "no", new dev.flows.sdk.TokenUsage(1, 1), "content_filter");
            }));
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  try {
                    f.llm("fast").user("x").call();
                    return JSON.objectNode().put("refused", false);
                  } catch (dev.flows.sdk.FlowsError e) {
                    return JSON.objectNode().put("refused", e.code());
                  }
                }));
    RunSnapshot done = DurableFlowTest.drive(journal, worker(), root, () -> false);
    assertThat(done.steps().getFirst().output().orElseThrow().path("refused").asText())
        .isEqualTo(ErrorCode.LLM_REFUSED.wire());
    assertThat(asked).hasValue(1);
  }

  @Test
  void aModelTheHeaderDoesNotDeclareFailsLlmUndeclaredModelBeforeAnyWrite() throws Exception {
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> JSON.objectNode().put("t", f.llm("smart").user("x").call().text())));
    RunSnapshot done = DurableFlowTest.drive(journal, worker(), root, () -> false);
    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    assertThat(
            journal.entries(root).stream()
                .filter(r -> r.entry() instanceof JournalEntry.EffectRecorded)
                .toList())
        .isEmpty();
    assertThat(journal.entries(root).toString()).contains("llm_undeclared_model");
  }

  @Test
  void aDeclaredModelThisWorkerLacksFailsLlmUndeclaredModelWithNothingRecorded() throws Exception {
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> JSON.objectNode().put("t", f.llm("fast").user("x").call().text())));
    RunSnapshot done = DurableFlowTest.drive(journal, worker(), root, () -> false);
    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    assertThat(journal.entries(root))
        .noneMatch(r -> r.entry() instanceof JournalEntry.EffectRecorded);
    assertThat(journal.entries(root).toString())
        .contains("llm_undeclared_model")
        .contains("model 'fast' is not declared");
  }

  @Test
  void aCallWithoutAMessageIsRefusedInvalidInputWithNothingRecorded() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    registry.register("fast", new ClientModelPort("fast", counting(asked, "x")));
    RunRef root =
        start(
            new TestFlow(
                HEADER, (f, in) -> JSON.objectNode().put("t", f.llm("fast").call().text())));
    RunSnapshot done = DurableFlowTest.drive(journal, worker(), root, () -> false);
    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    assertThat(journal.entries(root).toString())
        .contains("invalid_input")
        .contains("has no message to send");
    assertThat(journal.entries(root))
        .noneMatch(r -> r.entry() instanceof JournalEntry.EffectRecorded);
    assertThat(asked).hasValue(0);
  }

  @Test
  void anAnswerPastTheWorkersOutputLimitFailsTheCallPayloadTooLargeAndIsNeverJournaled()
      throws Exception {
    String big = "w".repeat(5000);
    AtomicInteger asked = new AtomicInteger();
    registry.register(
        "fast",
        new ClientModelPort(
            "fast",
            (messages, schema) -> {
              asked.incrementAndGet();
              return ModelClient.Answer.of(big, 7, 3);
            }));
    AtomicInteger runs = new AtomicInteger();
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  runs.incrementAndGet();
                  try {
                    f.llm("fast").user("write a lot").call();
                    return JSON.textNode("not thrown");
                  } catch (dev.flows.sdk.FlowsError e) {
                    return JSON.objectNode().put("code", e.code()).put("message", e.getMessage());
                  }
                }));
    MiniWorker w =
        new MiniWorker(
            journal,
            new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS)
                .models(new BodyModels(registry, new LlmCalls(d -> {})))
                .limits(
                    dev.flows.kernel.journal.PayloadLimits.DEFAULTS.withMaxStepOutputBytes(
                        dev.flows.kernel.journal.PayloadLimits.MIN_BYTES)));
    RunSnapshot done = DurableFlowTest.drive(journal, w, root, () -> false);

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    JsonNode out = done.steps().getFirst().output().orElseThrow();
    assertThat(out.path("code").asText()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE.wire());
    assertThat(out.path("message").asText()).contains("maxStepOutputBytes").contains("4096");
    assertThat(String.valueOf(journal.entries(root))).doesNotContain(big);
    assertThat(asked).hasValue(1);
  }
}
