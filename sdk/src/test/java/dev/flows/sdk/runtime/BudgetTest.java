package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelPrice;
import dev.flows.kernel.llm.ModelProvider;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.ToolCall;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.Budget;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Budgets of one model call, of an agent and of a run (its child flows' calls included), checked
 * against the journaled usage priced at the prices frozen into the run, through the engine on the
 * in-memory journal and the scripted model server.
 */
class BudgetTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** $1000 per 1M tokens in, $2000 out: 10 in and 5 out cost $0.02. */
  private static final ModelPrice PRICE =
      new ModelPrice(BigDecimal.valueOf(1000), BigDecimal.valueOf(2000));

  private final InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());

  private FlowsEngine engine(ScriptedModelServer server, Flow... flows) {
    FlowsEngine engine =
        EngineEndToEndTest.engine(
            journal,
            SdkConfig.DEFAULTS.toBuilder()
                .suspendAfter(Duration.ofMillis(300))
                .childPoll(Duration.ofMillis(50))
                .build());
    engine
        .models()
        .declare(
            new ModelConfig(
                "smart",
                ModelProvider.OPENAI_COMPATIBLE,
                "gpt-scripted",
                Optional.of(URI.create(server.baseUrl())),
                Optional.empty(),
                Duration.ofSeconds(10),
                Optional.of(PRICE)));
    for (Flow f : flows) {
      engine.register(f);
    }
    engine.startWorker();
    return engine;
  }

  private static RunRef start(FlowsEngine engine, Flow flow) {
    return engine
        .admit(
            new LoadedFlow(
                flow,
                new FlowBodyInstruction.Origin.ClassFlow(flow.getClass().getName()),
                Set.of(),
                Path.of(".")),
            JSON.objectNode(),
            Optional.empty(),
            Inventory.empty())
        .runId();
  }

  private static FlowHeader.Builder header(String name) {
    return FlowHeader.named(name).models("smart");
  }

  private static DurableFlowTest.TestFlow flow(
      FlowHeader.Builder header, DurableFlowTest.TestFlow.Body body) {
    return new DurableFlowTest.TestFlow(header.build(), body);
  }

  /** What the body's {@code call} answered, or its refusal as {@code code: message}. */
  private static JsonNode attempt(DurableFlowTest.TestFlow.Body call, dev.flows.sdk.Ctx f)
      throws Exception {
    try {
      return call.run(f, JSON.objectNode());
    } catch (FlowsError e) {
      return JSON.textNode(e.code() + ": " + e.getMessage());
    }
  }

  private String output(RunRef run) throws InterruptedException {
    RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, run);
    return done.steps().getFirst().output().orElseThrow().asText();
  }

  @Test
  void aCallPastItsOwnBudgetFailsBudgetExhaustedWithWhatItUsedAndTheLimit() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(Turn.text("short", 40, 10), Turn.text("long", 80, 40)))) {
      Flow body =
          flow(
              header("one-call"),
              (f, in) ->
                  attempt(
                      (g, x) -> {
                        String a =
                            f.llm("smart").user("a").budget(Budget.tokens(100)).call().text();
                        String b =
                            f.llm("smart").user("b").budget(Budget.tokens(100)).call().text();
                        return JSON.textNode(a + b);
                      },
                      f));
      try (FlowsEngine engine = engine(server, body)) {
        assertThat(output(start(engine, body)))
            .isEqualTo(
                "budget_exhausted: the call used 1 model calls, 120 tokens, $0.16 of its"
                    + " budget (100 tokens)");
        assertThat(server.requests()).hasSize(2);
      }
    }
  }

  @Test
  void anAgentsCostBudgetRefusesTheTurnOnceItsTurnsCostReachIt() throws Exception {
    ToolCall echo = new ToolCall("c1", "nothing__here", JSON.objectNode());
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(echo), Turn.toolCalls(echo), Turn.text("too late", 10, 5)))) {
      Flow body =
          flow(
              header("agent-cost"),
              (f, in) ->
                  attempt(
                      (g, x) ->
                          JSON.textNode(
                              f.agent("smart")
                                  .budget(Budget.unlimited().costUsd(0.03))
                                  .run("triage")),
                      f));
      try (FlowsEngine engine = engine(server, body)) {
        // Each tool-call turn reports 10 tokens in and 5 out: $0.02 a turn.
        assertThat(output(start(engine, body)))
            .isEqualTo(
                "budget_exhausted: the agent used 2 model calls, 30 tokens, $0.04 of its"
                    + " budget ($0.03)");
        assertThat(server.requests()).hasSize(2);
      }
    }
  }

  @Test
  void aRunBudgetCoversItsChildFlowsCallsAndRefusesTheChildsCallPastIt() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.text("parent", 60, 40),
                Turn.text("child", 60, 40),
                Turn.text("never", 1, 1)))) {
      Flow child =
          flow(
              header("child-spender"),
              (f, in) ->
                  attempt(
                      (g, x) -> {
                        f.llm("smart").user("first").call();
                        return JSON.textNode(f.llm("smart").user("second").call().text());
                      },
                      f));
      Flow parent =
          flow(
              header("parent-budget").budget(Budget.tokens(200)),
              (f, in) -> {
                f.llm("smart").user("parent").call();
                return f.flow("child-spender").call(Map.of());
              });
      try (FlowsEngine engine = engine(server, child, parent)) {
        RunRef root = start(engine, parent);
        assertThat(output(root))
            .isEqualTo(
                "budget_exhausted: run "
                    + root.value()
                    + " (with its children) used 2 model calls, 200 tokens, $0.28 of its"
                    + " budget (200 tokens)");
        assertThat(server.requests()).hasSize(2);
      }
    }
  }

  @Test
  void aRunBudgetCountsEachJournaledCallOnceWhenTheBodyReplays() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.text("one", 10, 5), Turn.text("two", 10, 5), Turn.text("three", 10, 5)))) {
      Flow body =
          flow(
              header("replayed").budget(Budget.unlimited().turns(3)),
              (f, in) ->
                  attempt(
                      (g, x) -> {
                        f.llm("smart").user("1").call();
                        f.llm("smart").user("2").call();
                        // Gives the attempt back: the body replays the two calls from the journal.
                        f.sleep(Duration.ofMillis(200));
                        f.llm("smart").user("3").call();
                        return JSON.textNode(f.llm("smart").user("4").call().text());
                      },
                      f));
      try (FlowsEngine engine = engine(server, body)) {
        RunRef run = start(engine, body);
        assertThat(output(run))
            .isEqualTo(
                "budget_exhausted: run "
                    + run.value()
                    + " (with its children) used 3 model calls, 45 tokens, $0.06 of its"
                    + " budget (3 model calls)");
        assertThat(server.requests()).hasSize(3);
      }
    }
  }

  @Test
  void theRunFreezesThePricesItWasAdmittedWith() throws Exception {
    try (ScriptedModelServer server = ScriptedModelServer.start(ScriptedModel.of())) {
      Flow body = flow(header("frozen"), (f, in) -> JSON.textNode("done"));
      try (FlowsEngine engine = engine(server, body)) {
        RunRef run = start(engine, body);
        RunSnapshot s = EngineEndToEndTest.awaitTerminal(journal, run);
        FlowBodyInstruction i =
            FlowBodyInstruction.fromJson(
                s.spec().path("steps").path(0).path("agent").path("instruction"));
        assertThat(i.prices().of("smart")).contains(PRICE);
        assertThat(i.budget()).isEmpty();
      }
    }
  }
}
