package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.ToolCall;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.worker.FaultPoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An agent whose worker JVM dies (halts, as a SIGKILL) during a turn's model call and during a tool
 * call, on Postgres: a second worker answers the turns before from the journal, asks the
 * interrupted turn once more, performs every tool key once, and ends with the uninterrupted answer.
 */
class AgentCrashTest {
  private static final Duration LEASE = TestWorkerMain.LEASE;
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;
  private static FlowsEngine engine;
  private static Path dir;

  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;

      public class Agent implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("agent").version("1").mcp("idem").models("smart").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String answer =
              f.agent("smart").instructions("Book it.").tools(Tools.of("idem", "ledger")).run("go");
          return JsonNodeFactory.instance.textNode(answer);
        }
      }
      """;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("agent_crash");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()));
    dir = Files.createTempDirectory("agent-crash");
  }

  // An engine per test: each test's flows.json declares the model "smart" at its own scripted
  // server, and one engine refuses a model declared twice differently.
  @BeforeEach
  void startEngine() {
    engine = FlowsEngine.withDefaults(journal);
  }

  @AfterEach
  void closeEngine() {
    engine.close();
  }

  @AfterAll
  static void tearDown() {
    journal.close();
  }

  private static ToolCall ledger(String id, int n) {
    return new ToolCall(id, "idem__ledger", JSON.objectNode().put("n", n));
  }

  /** The flow beside a flows.json with the ledger server and the scripted model. */
  private static Path flowDir(ScriptedModelServer model, Path ledger) throws Exception {
    Path d = dir.resolve("run-" + System.nanoTime());
    LedgerFlows.write(d, "agent.flow.java", FLOW, "idem", true, ledger);
    ObjectNode config = (ObjectNode) DurableCtx.MAPPER.readTree(d.resolve("flows.json").toFile());
    config
        .putObject("models")
        .putObject("smart")
        .put("provider", "openai-compatible")
        .put("model", "gpt-scripted")
        .put("baseUrl", model.baseUrl());
    Files.writeString(d.resolve("flows.json"), config.toString());
    return d;
  }

  private static RunSnapshot crashThenRecover(Path flowDir, FaultPoint point, int skip)
      throws Exception {
    LoadedFlow flow = LoadedFlow.load(flowDir.resolve("agent.flow.java").toString(), flowDir);
    RunRef root = engine.start(flow, JSON.objectNode(), Optional.empty()).runId();
    List<String> flags = List.of("-Dflows.test.modelsFrom=" + flowDir);
    Process dying = TestWorkerMain.launch(db.jdbcUrl(), LEASE, Optional.of(point), skip, flags);
    assertThat(dying.waitFor(120, TimeUnit.SECONDS)).as("the faulty worker died").isTrue();
    assertThat(dying.exitValue()).isEqualTo(FaultPoint.HALT_STATUS);
    // What the dead worker held runs out now, not after a wait a busy machine could outlast.
    ExpiredLeases.all(db.jdbcUrl());
    Process healthy = TestWorkerMain.launch(db.jdbcUrl(), LEASE, Optional.empty(), 0, flags);
    try {
      long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (System.nanoTime() < until) {
        RunSnapshot s = journal.run(root).orElseThrow();
        if (s.status().terminal() || s.status() == RunStatus.PARKED) {
          return s;
        }
        journal.awaitWork(Duration.ofMillis(200));
      }
      throw new AssertionError("run did not settle: " + journal.run(root));
    } finally {
      healthy.destroy();
      healthy.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aWorkerKilledAfterTurnTwosModelAnsweredIsReplacedAndOnlyTurnTwoIsAskedAgain()
      throws Exception {
    Path ledgerFile = dir.resolve("ledger-model");
    // The second turn's answer twice: the dead worker's, and the one its replacement asks for.
    try (ScriptedModelServer model =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(ledger("c1", 1)),
                Turn.toolCalls(ledger("c2", 2)),
                Turn.toolCalls(ledger("c2", 2)),
                Turn.text("booked")))) {
      // after_call_before_confirm is reached by turn 1, then its tool call, then turn 2.
      RunSnapshot done =
          crashThenRecover(flowDir(model, ledgerFile), FaultPoint.AFTER_CALL_BEFORE_CONFIRM, 2);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().asText()).isEqualTo("booked");
      assertThat(model.requests()).hasSize(4);
      assertThat(Files.readAllLines(ledgerFile)).hasSize(2).doesNotHaveDuplicates();
    }
  }

  @Test
  void aWorkerKilledDuringAToolCallIsReplacedAndTheToolKeyIsPerformedOnce() throws Exception {
    Path ledgerFile = dir.resolve("ledger-tool");
    try (ScriptedModelServer model =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(ledger("c1", 1)),
                Turn.toolCalls(ledger("c2", 2)),
                Turn.text("booked")))) {
      RunSnapshot done = crashThenRecover(flowDir(model, ledgerFile), FaultPoint.DURING_CALL, 1);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().asText()).isEqualTo("booked");
      assertThat(model.requests()).as("no turn asked twice").hasSize(3);
      assertThat(Files.readAllLines(ledgerFile)).hasSize(2).doesNotHaveDuplicates();
    }
  }
}
