package dev.flows.worker.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelProvider;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.worker.CancellationToken;
import dev.flows.worker.EffectGate;
import dev.flows.worker.StepExecution;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The {@code llm} step kind against a scripted OpenAI-compatible server, through LangChain4j. */
class LlmExecutorTest {
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final List<Duration> slept = new ArrayList<>();
  private ScriptedModelServer server;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private LlmExecutor executor(Turn... turns) throws Exception {
    server = ScriptedModelServer.start(ScriptedModel.of(turns));
    ModelRegistry models = new ModelRegistry(name -> Optional.of("sk-test"));
    models.declare(
        new ModelConfig(
            "small",
            ModelProvider.OPENAI_COMPATIBLE,
            "gpt-scripted",
            Optional.of(URI.create(server.baseUrl())),
            Optional.of("SCRIPTED_KEY"),
            Duration.ofSeconds(10)));
    return new LlmExecutor(models, new LlmCalls(slept::add));
  }

  private ClaimedAttempt llmStep(String model) {
    StepSpec step =
        new StepSpec(
            "greet",
            List.of(),
            JsonNodeFactory.instance.objectNode(),
            3,
            new BackoffPolicy(1, 1, 1.0, 0),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Llm("Write a welcome", model));
    journal.admit(
        StartRun.of("k" + System.nanoTime(), new RunSpec(RunSpec.VERSION, "t", List.of(step))),
        Admit.queued());
    return claim();
  }

  private ClaimedAttempt claim() {
    return journal
        .claim(new ClaimRequest(new WorkerId("w"), Set.of(StepKind.LLM), 1, Duration.ofSeconds(30)))
        .getFirst();
  }

  private StepExecution exec(ClaimedAttempt a) {
    EffectGate gate =
        new EffectGate() {
          @Override
          public EffectElection record(String path) {
            return journal.recordEffect(a.lease(), path);
          }

          @Override
          public void confirm(String path, Optional<JsonNode> output) {
            journal.confirmEffect(a.lease(), path, output);
          }
        };
    return new StepExecution(a, new CancellationToken(), gate);
  }

  @Test
  void anLlmStepAsksItsModelAndJournalsTheReceiptBetweenRecordAndConfirm() throws Exception {
    LlmExecutor executor = executor(Turn.text("Welcome aboard!", 12, 4));
    ClaimedAttempt a = llmStep("small");
    JsonNode receipt = ((StepOutcome.Succeeded) executor.execute(exec(a))).output();

    assertThat(receipt.path("type").asText()).isEqualTo("llm");
    assertThat(receipt.path("model").asText()).isEqualTo("small");
    assertThat(receipt.path("provider").asText()).isEqualTo("openai-compatible");
    assertThat(receipt.path("providerModel").asText()).isEqualTo("gpt-scripted");
    assertThat(receipt.path("output").asText()).isEqualTo("Welcome aboard!");
    assertThat(receipt.path("usage").path("inputTokens").asLong()).isEqualTo(12);
    assertThat(receipt.path("usage").path("outputTokens").asLong()).isEqualTo(4);
    assertThat(receipt.path("finishReason").asText()).isEqualTo("stop");
    assertThat(receipt.path("idempotencyKey").asText()).isEqualTo(a.idempotencyKey());
    JsonNode sent = server.requests().getFirst();
    assertThat(sent.path("model").asText()).isEqualTo("gpt-scripted");
    assertThat(sent.path("messages").toString()).contains("Write a welcome");
    assertThat(journal.entries(a.lease().runId()))
        .extracting(r -> r.entry().type())
        .containsSubsequence("effect.recorded", "effect.confirmed");
  }

  @Test
  void aStepWithoutAModelUsesTheOnlyOneDeclared() throws Exception {
    LlmExecutor executor = executor(Turn.text("hi"));
    StepOutcome out = executor.execute(exec(llmStep("")));
    assertThat(((StepOutcome.Succeeded) out).output().path("model").asText()).isEqualTo("small");
  }

  @Test
  void aConfirmedCallIsAnsweredFromTheJournalWithoutAskingTheModelAgain() throws Exception {
    LlmExecutor executor = executor(Turn.text("once"));
    ClaimedAttempt a = llmStep("small");
    JsonNode first = ((StepOutcome.Succeeded) executor.execute(exec(a))).output();
    JsonNode again = ((StepOutcome.Succeeded) executor.execute(exec(a))).output();
    assertThat(again).isEqualTo(first);
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aCallRecordedByADeadAttemptAndNeverConfirmedIsAskedAgainUnderTheSameKey() throws Exception {
    LlmExecutor executor = executor(Turn.text("second time"));
    ClaimedAttempt first = llmStep("small");
    String key = journal.recordEffect(first.lease(), StepBody.Llm.SURFACE).idempotencyKey();
    journal.complete(
        first.lease(),
        new StepOutcome.Failed(
            CompletionReason.WORKER_ERROR, JsonNodeFactory.instance.objectNode(), true));
    clock.advance(Duration.ofSeconds(1));
    ClaimedAttempt second = claim();
    assertThat(second.lease().attempt()).isEqualTo(2);

    JsonNode receipt = ((StepOutcome.Succeeded) executor.execute(exec(second))).output();

    assertThat(receipt.path("output").asText()).isEqualTo("second time");
    assertThat(receipt.path("idempotencyKey").asText()).isEqualTo(key);
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aRateLimitedCallWaitsForTheProvidersRetryAfterAndIsAskedAgain() throws Exception {
    LlmExecutor executor = executor(Turn.rateLimited(Duration.ofSeconds(2)), Turn.text("ok"));
    JsonNode receipt = ((StepOutcome.Succeeded) executor.execute(exec(llmStep("small")))).output();
    assertThat(receipt.path("output").asText()).isEqualTo("ok");
    assertThat(slept).containsExactly(Duration.ofSeconds(2));
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void aCallStillRateLimitedAfterItsRetriesFailsLlmRateLimitedRetryably() throws Exception {
    Turn limited = Turn.rateLimited(Duration.ofMillis(500));
    LlmExecutor executor = executor(limited, limited, limited, limited);
    StepOutcome.Failed f = (StepOutcome.Failed) executor.execute(exec(llmStep("small")));
    assertThat(f.retryable()).isTrue();
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo("llm_rate_limited");
    assertThat(f.trajectoryTail().path("message").asText()).contains("Rate limit reached");
    assertThat(slept).hasSize(LlmCalls.RATE_LIMIT_RETRIES).containsOnly(Duration.ofMillis(500));
  }

  @Test
  void aContentFilterRefusalFailsLlmRefusedWithoutRetry() throws Exception {
    LlmExecutor executor = executor(Turn.refused("I can't help with that."));
    StepOutcome.Failed f = (StepOutcome.Failed) executor.execute(exec(llmStep("small")));
    assertThat(f.retryable()).isFalse();
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo("llm_refused");
    assertThat(f.trajectoryTail().path("message").asText()).contains("I can't help with that.");
  }

  @Test
  void aProviderErrorFailsLlmErrorRetryablyWithTheProvidersMessage() throws Exception {
    LlmExecutor executor = executor(Turn.error(500, "the model is overloaded"));
    ClaimedAttempt a = llmStep("small");
    StepOutcome.Failed f = (StepOutcome.Failed) executor.execute(exec(a));
    assertThat(f.retryable()).isTrue();
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo("llm_error");
    assertThat(f.trajectoryTail().path("message").asText()).contains("the model is overloaded");
    assertThat(f.trajectoryTail().path("idempotencyKey").asText()).isEqualTo(a.idempotencyKey());
  }

  @Test
  void anUndeclaredModelFailsLlmUndeclaredModelWithoutAskingAnything() throws Exception {
    LlmExecutor executor = executor(Turn.text("never"));
    ClaimedAttempt a = llmStep("huge");
    StepOutcome.Failed f = (StepOutcome.Failed) executor.execute(exec(a));
    assertThat(f.retryable()).isFalse();
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo("llm_undeclared_model");
    assertThat(f.trajectoryTail().path("message").asText()).contains("huge").contains("small");
    assertThat(server.requests()).isEmpty();
    assertThat(journal.entries(a.lease().runId()))
        .noneMatch(r -> r.entry() instanceof JournalEntry.EffectRecorded);
  }
}
