package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelProvider;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.ToolCall;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.Tools;
import dev.flows.sdk.runtime.DurableFlowTest.TestFlow;
import dev.flows.worker.llm.LlmCalls;
import dev.flows.worker.llm.ModelRegistry;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * {@code f.agent}: a model (the scripted OpenAI-compatible server, through LangChain4j's client)
 * calling the flow's tools in a durable loop, on the in-memory journal.
 */
class AgentTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  static final FlowHeader HEADER =
      FlowHeader.named("triage").version("1").mcp("tickets", "pay").models("smart").build();

  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final FlowResolver resolver = new FlowResolver();
  private final ModelRegistry registry = new ModelRegistry(name -> Optional.of("sk-test"));

  static MiniWorker worker(Journal journal, FlowResolver resolver, ModelRegistry registry) {
    return new MiniWorker(
        journal,
        new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS)
            .models(new BodyModels(registry, new LlmCalls(d -> {}))));
  }

  static void declare(ModelRegistry registry, ScriptedModelServer server) {
    registry.declare(
        new ModelConfig(
            "smart",
            ModelProvider.OPENAI_COMPATIBLE,
            "gpt-scripted",
            Optional.of(URI.create(server.baseUrl())),
            Optional.empty(),
            Duration.ofSeconds(10)));
  }

  private RunRef start(TestFlow.Body body) {
    return DurableFlowTest.start(
        journal, resolver, new TestFlow(HEADER, body), JSON.objectNode(), SdkConfig.DEFAULTS);
  }

  private static ToolCall call(String id, String name, String args) {
    try {
      return new ToolCall(id, name, DurableCtx.MAPPER.readTree(args));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> functionNames(JsonNode request) {
    return StreamSupport.stream(request.path("tools").spliterator(), false)
        .map(t -> t.path("function").path("name").asText())
        .toList();
  }

  @Test
  void theModelCallsTheFlowsToolsInOneTurnAndItsAnswerWithoutToolsEndsTheLoop() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(
                    call("c1", "tickets__classify", "{\"text\":\"printer on fire\"}"),
                    call("c2", "pay__charge", "{\"amount\":5}")),
                Turn.text("hardware, charged")))) {
      declare(registry, server);
      RunRef root =
          start(
              (f, in) ->
                  JSON.textNode(
                      f.agent("smart")
                          .instructions("You triage tickets.")
                          .tools("tickets", "pay")
                          .run("printer on fire")));
      MiniWorker w = worker(journal, resolver, registry);
      RunSnapshot done = DurableFlowTest.drive(journal, w, root, () -> false);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().asText())
          .isEqualTo("hardware, charged");
      assertThat(w.calls).containsExactlyInAnyOrder("tickets/classify", "pay/charge");
      List<JsonNode> requests = server.requests();
      assertThat(requests).hasSize(2);
      assertThat(functionNames(requests.getFirst()))
          .containsExactly("tickets__classify", "tickets__create", "pay__charge");
      JsonNode second = requests.get(1).path("messages");
      assertThat(second.get(0).path("content").asText()).isEqualTo("You triage tickets.");
      assertThat(second.get(2).path("tool_calls")).hasSize(2);
      assertThat(second.get(3).path("tool_call_id").asText()).isEqualTo("c1");
      assertThat(second.get(3).path("content").asText()).isEqualTo("classify done");
      assertThat(second.get(4).path("content").asText()).isEqualTo("charge done");
      // Both calls were issued before the body waited for either: two children of the run.
      assertThat(journal.children(root)).hasSize(2);
    }
  }

  @Test
  void aToolsErrorAndAToolNotOfferedGoBackToTheModelAsTheToolsResult() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(
                    call("c1", "tickets__classify", "{}"), call("c2", "pay__charge", "{}")),
                Turn.text("gave up")))) {
      declare(registry, server);
      RunRef root =
          start(
              (f, in) ->
                  JSON.textNode(
                      f.agent("smart").tools(Tools.of("tickets", "classify")).run("triage")));
      MiniWorker w = worker(journal, resolver, registry);
      w.failing.add("tickets/classify");
      RunSnapshot done = DurableFlowTest.drive(journal, w, root, () -> false);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(functionNames(server.requests().getFirst())).containsExactly("tickets__classify");
      JsonNode second = server.requests().get(1).path("messages");
      assertThat(second.get(2).path("content").asText())
          .startsWith("error (mcp_tool_error)")
          .contains("classify refused");
      assertThat(second.get(3).path("content").asText())
          .startsWith("error: no tool named 'pay__charge'");
      assertThat(w.calls).containsExactly("tickets/classify");
    }
  }

  @Test
  void aToolCallWhoseServerPerformedItAndDiedParksTheAgentInsteadOfTellingTheModelItFailed()
      throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(call("c1", "tickets__classify", "{}")), Turn.text("done")))) {
      declare(registry, server);
      RunRef root =
          start(
              (f, in) ->
                  JSON.textNode(
                      f.agent("smart").tools(Tools.of("tickets", "classify")).run("triage")));
      MiniWorker w = worker(journal, resolver, registry);
      w.dying.add("tickets/classify");
      // The call's retries wait out their backoff on the journal's clock.
      RunSnapshot done =
          DurableFlowTest.drive(
              journal,
              w,
              root,
              () -> {
                clock.advance(Duration.ofMillis(50));
                return false;
              });

      assertThat(done.status()).isEqualTo(RunStatus.PARKED);
      RunRef call = journal.children(root).getFirst();
      assertThat(journal.run(call).orElseThrow().status()).isEqualTo(RunStatus.PARKED);
      assertThat(server.requests()).as("the model was never told the call failed").hasSize(1);
    }
  }

  @Test
  void aReplayAnswersEveryTurnAndToolCallFromTheJournalWithoutAskingTheModelAgain()
      throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(call("c1", "tickets__classify", "{\"text\":\"a\"}")),
                Turn.toolCalls(call("c2", "tickets__create", "{\"text\":\"b\"}")),
                Turn.text("{\"category\":\"hardware\",\"priority\":2}")))) {
      declare(registry, server);
      AtomicInteger bodies = new AtomicInteger();
      CountDownLatch answered = new CountDownLatch(1);
      CountDownLatch never = new CountDownLatch(1);
      RunRef root =
          start(
              (f, in) -> {
                ModelCallsTest.Verdict v =
                    f.agent("smart").tools("tickets").run("triage", ModelCallsTest.Verdict.class);
                if (bodies.incrementAndGet() == 1) {
                  answered.countDown();
                  never.await();
                }
                return JSON.objectNode().put("category", v.category()).put("p", v.priority());
              });
      MiniWorker w = worker(journal, resolver, registry);
      DurableFlowTest.drive(journal, w, root, () -> answered.getCount() == 0);
      RunSnapshot done = DurableFlowTest.killAndReplay(journal, clock, w, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(bodies).hasValue(2);
      assertThat(done.steps().getFirst().output().orElseThrow().path("category").asText())
          .isEqualTo("hardware");
      assertThat(server.requests()).hasSize(3);
      assertThat(w.performedByKey.values()).hasSize(2).allMatch(n -> n.get() == 1);
      assertThat(server.requests().getFirst().path("response_format").path("type").asText())
          .isEqualTo("json_schema");
    }
  }

  @Test
  void anAgentPastItsMaxTurnsFailsBudgetExhaustedSayingHowManyItUsed() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(call("c1", "tickets__classify", "{}")),
                Turn.toolCalls(call("c2", "tickets__classify", "{}")),
                Turn.text("too late")))) {
      declare(registry, server);
      RunRef root =
          start(
              (f, in) -> {
                try {
                  f.agent("smart").tools("tickets").maxTurns(2).run("triage");
                  return JSON.textNode("answered");
                } catch (FlowsError e) {
                  return JSON.textNode(e.code() + ": " + e.getMessage());
                }
              });
      RunSnapshot done =
          DurableFlowTest.drive(journal, worker(journal, resolver, registry), root, () -> false);

      assertThat(done.steps().getFirst().output().orElseThrow().asText())
          .startsWith("budget_exhausted: ")
          .contains("all its 2 turns");
      assertThat(server.requests()).hasSize(2);
    }
  }

  @Test
  void aTurnPastTheAgentsTokenBudgetIsNotAskedAndFailsBudgetExhaustedWithWhatWasUsed()
      throws Exception {
    // Each scripted tool-call turn reports 10 input and 5 output tokens.
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(call("c1", "tickets__classify", "{}")),
                Turn.toolCalls(call("c2", "tickets__classify", "{}")),
                Turn.text("too late")))) {
      declare(registry, server);
      RunRef root =
          start(
              (f, in) -> {
                try {
                  f.agent("smart")
                      .tools("tickets")
                      .budget(dev.flows.sdk.Budget.tokens(25).turns(5))
                      .run("triage");
                  return JSON.textNode("answered");
                } catch (FlowsError e) {
                  return JSON.textNode(e.code() + ": " + e.getMessage());
                }
              });
      RunSnapshot done =
          DurableFlowTest.drive(journal, worker(journal, resolver, registry), root, () -> false);

      assertThat(done.steps().getFirst().output().orElseThrow().asText())
          .isEqualTo(
              "budget_exhausted: the agent used 2 model calls, 30 tokens of its budget"
                  + " (5 model calls, 25 tokens)");
      assertThat(server.requests()).hasSize(2);
    }
  }

  @Test
  void anAgentOfferingAToolTheInventoryLacksIsRefusedBeforeAnyTurn() throws Exception {
    try (ScriptedModelServer server = ScriptedModelServer.start(ScriptedModel.of())) {
      declare(registry, server);
      RunRef root =
          start(
              (f, in) -> {
                try {
                  f.agent("smart").tools(Tools.of("tickets", "delete")).run("triage");
                  return JSON.textNode("ran");
                } catch (FlowsError e) {
                  return JSON.textNode(e.code());
                }
              });
      RunSnapshot done =
          DurableFlowTest.drive(journal, worker(journal, resolver, registry), root, () -> false);

      assertThat(done.steps().getFirst().output().orElseThrow().asText())
          .isEqualTo("mcp_unknown_tool");
      assertThat(server.requests()).isEmpty();
    }
  }

  /** The bytes the journal holds for {@code root} and its children, as the entries' JSON. */
  static long journalBytes(Journal journal, RunRef root) {
    long bytes = 0;
    for (RunRef r :
        java.util.stream.Stream.concat(
                java.util.stream.Stream.of(root), journal.children(root).stream())
            .toList()) {
      for (dev.flows.kernel.journal.JournalRecord rec : journal.entries(r)) {
        bytes += dev.flows.kernel.journal.EntryJson.payload(rec.entry()).toString().length();
      }
    }
    return bytes;
  }

  @Test
  void eachTurnJournalsOnlyWhatItAddsSoTurnHundredAddsNoMoreThanTurnTen() throws Exception {
    int turns = 101;
    List<Long> bytesAtAsk = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicReference<RunRef> run =
        new java.util.concurrent.atomic.AtomicReference<>();
    registry.register(
        "smart",
        new dev.flows.kernel.llm.ModelPort() {
          @Override
          public String provider() {
            return "scripted";
          }

          @Override
          public String model() {
            return "scripted";
          }

          @Override
          public dev.flows.kernel.llm.LlmAnswer chat(dev.flows.kernel.llm.LlmRequest request) {
            bytesAtAsk.add(journalBytes(journal, run.get()));
            int turn = bytesAtAsk.size();
            var usage = new dev.flows.kernel.llm.LlmUsage(1000, 20);
            if (turn == turns) {
              return new dev.flows.kernel.llm.LlmAnswer("done", usage, "stop");
            }
            return new dev.flows.kernel.llm.LlmAnswer(
                "",
                List.of(
                    new dev.flows.kernel.llm.LlmToolCall(
                        "call-%04d".formatted(turn), "tickets__classify", "{\"text\":\"same\"}")),
                usage,
                "tool_calls");
          }
        });
    run.set(
        start(
            (f, in) ->
                JSON.textNode(
                    f.agent("smart")
                        .instructions("You triage tickets.")
                        .tools("tickets")
                        .maxTurns(turns)
                        .run("printer on fire"))));
    RunSnapshot done =
        DurableFlowTest.drive(journal, worker(journal, resolver, registry), run.get(), () -> false);

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(bytesAtAsk).hasSize(turns);
    long turn10 = bytesAtAsk.get(10) - bytesAtAsk.get(9);
    long turn100 = bytesAtAsk.get(100) - bytesAtAsk.get(99);
    assertThat(turn10).isPositive();
    assertThat(turn100).isLessThanOrEqualTo(turn10 * 12 / 10);
  }
}
