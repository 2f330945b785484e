package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.llm.LlmAnswer;
import dev.flows.kernel.llm.LlmReceipt;
import dev.flows.kernel.llm.LlmRequest;
import dev.flows.kernel.llm.LlmToolCall;
import dev.flows.kernel.llm.LlmUsage;
import dev.flows.kernel.llm.ModelPort;
import dev.flows.kernel.spec.StepKind;
import dev.flows.mcp.testkit.ScriptedModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A run's model calls through the CLI: {@code runs show} sums their usage, {@code runs
 * export-fixture} writes their answers as a script {@link ScriptedModel#fromFixture} reads back.
 */
class RunsModelUsageTest {
  private static final WorkerId WORKER = new WorkerId("usage-worker");
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final ModelPort PORT =
      new ModelPort() {
        @Override
        public String provider() {
          return "openai-compatible";
        }

        @Override
        public String model() {
          return "gpt-scripted";
        }

        @Override
        public LlmAnswer chat(LlmRequest request) {
          throw new AssertionError("the journal answers; no model is asked");
        }
      };

  private static PostgresJournal journal;
  private static Cli cli;
  private static Path home;

  @BeforeAll
  static void database() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("runs_usage");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(2));
    home = Files.createTempDirectory("flows-home");
    cli =
        new Cli(
            Map.of(
                Session.HOME_VARIABLE, home.toString(), DatabaseTarget.URL_VARIABLE, db.jdbcUrl()),
            OpsConfig.defaults());
  }

  @AfterAll
  static void close() {
    journal.close();
    PgBinaries.deleteTree(home);
  }

  /** A run whose step journaled two model calls: tool calls, then a text answer. */
  private static RunRef runWithTwoModelCalls() {
    RunRef run =
        journal
            .admit(
                StartRun.of(
                    "usage-" + UUID.randomUUID(),
                    Specs.named("usage", Specs.agent("a", "/memo/1", "/memo/3"))),
                Admit.queued())
            .runId();
    ClaimedAttempt a =
        journal
            .claim(new ClaimRequest(WORKER, Set.of(StepKind.AGENT), 1, Duration.ofSeconds(30)))
            .getFirst();
    LlmAnswer tools =
        new LlmAnswer(
            "",
            List.of(new LlmToolCall("c1", "tickets__classify", "{\"text\":\"p\"}")),
            new LlmUsage(30, 5),
            "tool_calls");
    LlmAnswer text = new LlmAnswer("hardware", List.of(), new LlmUsage(40, 7), LlmAnswer.STOP);
    journal.recordConfirmedEffects(
        a.lease(),
        List.of(
            new MemoEffect("/memo/1", Optional.of(LlmReceipt.of("smart", PORT, tools, "k1"))),
            new MemoEffect("/memo/3", Optional.of(LlmReceipt.of("smart", PORT, text, "k3")))));
    journal.complete(a.lease(), new StepOutcome.Succeeded(JSON.textNode("hardware")));
    return run;
  }

  @Test
  void showSumsTheUsageOfTheRunsModelCallsInJsonAndText() {
    RunRef run = runWithTwoModelCalls();

    Cli.Result json = cli.run("runs", "show", run.value(), "--json");
    Cli.Result text = cli.run("runs", "show", run.value());

    assertThat(json.exit()).as(json.err()).isZero();
    JsonNode usage = json.json().path("run").path("usage");
    assertThat(usage.path("inputTokens").asLong()).isEqualTo(70);
    assertThat(usage.path("outputTokens").asLong()).isEqualTo(12);
    assertThat(usage.path("modelCalls").asInt()).isEqualTo(2);
    assertThat(json.json().path("run").path("steps")).hasSize(1);
    assertThat(text.out()).contains("usage: 2 model calls, 70 tokens in, 12 out");
  }

  /** A flow body run priced at $1000 per 1M tokens in and $2000 out, that journals {@code a}. */
  private static RunRef flowRun(
      Optional<RunRef> parent, Optional<dev.flows.sdk.Budget> budget, LlmAnswer a) {
    dev.flows.sdk.FlowHeader header = dev.flows.sdk.FlowHeader.named("priced").build();
    dev.flows.kernel.llm.ModelPrices prices =
        new dev.flows.kernel.llm.ModelPrices(
            Map.of(
                "smart",
                new dev.flows.kernel.llm.ModelPrice(
                    java.math.BigDecimal.valueOf(1000), java.math.BigDecimal.valueOf(2000))));
    RunRef run =
        journal
            .admit(
                new StartRun(
                    Optional.empty(),
                    "priced-" + UUID.randomUUID(),
                    dev.flows.sdk.runtime.Lowering.root(
                        header,
                        new dev.flows.kernel.instruction.FlowBodyInstruction.Origin.ClassFlow(
                            "Priced"),
                        JSON.objectNode(),
                        dev.flows.sdk.runtime.Inventory.empty(),
                        budget.map(
                            b ->
                                new dev.flows.kernel.llm.SpendLimit(
                                    b.tokens(), b.turns(), b.costUsd())),
                        prices,
                        dev.flows.sdk.runtime.SdkConfig.DEFAULTS),
                    parent,
                    "test"),
                Admit.queued())
            .runId();
    ClaimedAttempt c =
        journal
            .claim(new ClaimRequest(WORKER, Set.of(StepKind.AGENT), 1, Duration.ofSeconds(30)))
            .getFirst();
    assertThat(c.lease().runId()).isEqualTo(run);
    journal.recordConfirmedEffects(
        c.lease(),
        List.of(new MemoEffect("/memo/1", Optional.of(LlmReceipt.of("smart", PORT, a, "k")))));
    return run;
  }

  @Test
  void showPricesTheRunsCallsAndShowsItsBudgetAndItsTreesTotal() {
    RunRef parent =
        flowRun(
            Optional.empty(),
            Optional.of(dev.flows.sdk.Budget.tokens(500).costUsd(1)),
            new LlmAnswer("p", new LlmUsage(10, 5), LlmAnswer.STOP));
    flowRun(
        Optional.of(parent), Optional.empty(), new LlmAnswer("c", new LlmUsage(20, 10), "stop"));

    Cli.Result json = cli.run("runs", "show", parent.value(), "--json");
    Cli.Result text = cli.run("runs", "show", parent.value());

    assertThat(json.exit()).as(json.err()).isZero();
    JsonNode run = json.json().path("run");
    assertThat(run.path("usage").path("costUsd").decimalValue()).isEqualByComparingTo("0.02");
    assertThat(run.path("budget").path("tokens").asLong()).isEqualTo(500);
    assertThat(run.path("budget").path("costUsd").decimalValue()).isEqualByComparingTo("1");
    assertThat(run.path("treeUsage").path("modelCalls").asInt()).isEqualTo(2);
    assertThat(run.path("treeUsage").path("inputTokens").asLong()).isEqualTo(30);
    assertThat(run.path("treeUsage").path("costUsd").decimalValue()).isEqualByComparingTo("0.06");
    assertThat(run.path("children").get(0).path("usage").path("costUsd").decimalValue())
        .isEqualByComparingTo("0.04");
    assertThat(text.out())
        .contains("usage: 1 model calls, 10 tokens in, 5 out, $0.02")
        .contains("budget: 500 tokens, $1")
        .contains("tree usage: 2 model calls, 30 tokens in, 15 out, $0.06");
  }

  @Test
  void exportFixtureWritesTheRunsModelAnswersAsAScriptTheScriptedModelReadsBack() {
    RunRef run = runWithTwoModelCalls();

    Cli.Result json = cli.run("runs", "export-fixture", run.value(), "--json");
    Cli.Result text = cli.run("runs", "export-fixture", run.value());

    assertThat(json.exit()).as(json.err()).isZero();
    assertThat(text.out().strip()).isEqualTo(json.json().toPrettyString());
    ScriptedModel script = ScriptedModel.fromFixture(json.json());
    assertThat(script.turns())
        .containsExactly(
            new ScriptedModel.ToolCalls(
                List.of(
                    new ScriptedModel.ToolCall(
                        "c1", "tickets__classify", JSON.textNode("{\"text\":\"p\"}"))),
                30,
                5),
            new ScriptedModel.Text("hardware", 40, 7));
  }

  @Test
  void exportFixtureOfAnUnknownRunIsRefusedRunNotFound() {
    Cli.Result r = cli.run("runs", "export-fixture", "run_nope", "--json");

    assertThat(r.exit()).isNotZero();
    assertThat(r.out() + r.err()).contains("run_not_found");
  }
}
