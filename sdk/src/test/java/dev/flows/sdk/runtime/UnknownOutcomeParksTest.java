package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.testkit.Jvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A call to a server that honours idempotency keys, which performs it and dies before answering, on
 * every attempt: the engine never learns the outcome. Its attempts run out re-sending the call with
 * the same key (safe), and the call then parks {@code effect_outcome_unknown}, never failed, since
 * the server did perform it; the flow waiting on it parks too, and the operator's {@code resolve
 * --performed} lets it finish with that result. The same for a call the server performs and never
 * answers, with a timeout and no retry policy: its one attempt fails {@code timeout}, which is not
 * retried, yet the request went out, so it parks too. Through the real worker and MCP client
 * (stdio), on Postgres.
 */
class UnknownOutcomeParksTest {
  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;

  @BeforeAll
  static void setUp() {
    db = TestDatabase.fresh("unknown_outcome_parks");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()));
  }

  @AfterAll
  static void tearDown() {
    journal.close();
  }

  static final String CHARGE =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.time.Duration;
      import java.util.Map;

      public class Charge implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("charge").version("1").mcp("%1$s").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          try {
            String said = f.mcp("%1$s").tool("ledger")%2$s.call(Map.of()).text();
            return JsonNodeFactory.instance.objectNode().put("said", said);
          } catch (ChildFailedException e) {
            return JsonNodeFactory.instance.objectNode().put("failed", e.code());
          }
        }
      }
      """;

  /**
   * The flow, its call to {@code server} shaped by {@code call} (e.g. a timeout), beside a
   * flows.json naming the ledger server, which performs each call and then acts as {@code after}
   * says ({@code halt}: dies before answering; {@code hang}: never answers).
   */
  private static LoadedFlow flow(
      Path dir, Path ledger, String server, String call, String after, String config)
      throws Exception {
    Files.writeString(dir.resolve("charge.flow.java"), CHARGE.formatted(server, call));
    JsonNode s =
        McpServerConfigJson.write(
            Jvm.stdioServer(
                server,
                List.of(),
                Map.of("FLOWS_TEST_LEDGER", ledger.toString(), "FLOWS_TEST_LEDGER_AFTER", after)));
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\""
            + server
            + "\": {\"command\": "
            + s.path("command")
            + ", \"args\": "
            + s.path("args")
            + ", \"setEnv\": "
            + s.path("env")
            + config
            + "}}}");
    return LoadedFlow.load(dir.resolve("charge.flow.java").toString(), dir);
  }

  private static RunSnapshot awaitStatus(RunRef run, RunStatus status) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal.run(run).orElseThrow();
      if (s.status() == status || s.status().terminal()) {
        return s;
      }
      journal.awaitWork(Duration.ofMillis(200));
    }
    throw new AssertionError("run did not become " + status + ": " + journal.run(run));
  }

  /** The root parked waiting on its one call, itself parked with its step: answers the call. */
  private static RunRef parkedCall(RunRef root) throws Exception {
    RunSnapshot parked = awaitStatus(root, RunStatus.PARKED);
    assertThat(parked.status()).as("the flow waits on the call").isEqualTo(RunStatus.PARKED);
    RunRef call = journal.children(root).getFirst();
    RunSnapshot child = journal.run(call).orElseThrow();
    assertThat(child.status()).isEqualTo(RunStatus.PARKED);
    assertThat(child.steps().getFirst().status()).isEqualTo(StepStatus.PARKED);
    return call;
  }

  /** How each of the call's attempts ended, in order. */
  private static List<JournalEntry.StepCompleted> stepEnds(RunRef call) {
    return journal.entries(call).stream()
        .map(r -> r.entry())
        .filter(e -> e instanceof JournalEntry.StepCompleted)
        .map(e -> (JournalEntry.StepCompleted) e)
        .toList();
  }

  @Test
  void aCallTheServerPerformedButNeverAnsweredParksOutcomeUnknownAndResolvesPerformed(
      @TempDir Path dir) throws Exception {
    Path ledger = dir.resolve("ledger");
    try (FlowsEngine engine = EngineEndToEndTest.engine(journal, SdkConfig.DEFAULTS)) {
      RunRef root =
          engine
              .start(
                  flow(dir, ledger, "idem", "", "halt", ", \"idempotencyKeys\": true"),
                  JsonNodeFactory.instance.objectNode(),
                  Optional.empty())
              .runId();
      engine.startWorker();

      RunRef call = parkedCall(root);

      List<String> performed = Files.readAllLines(ledger);
      assertThat(performed).as("the server performed the key once").hasSize(1);
      assertThat(Files.readAllLines(Path.of(ledger + ".calls")))
          .as("every attempt re-sent the call with the same key")
          .hasSizeGreaterThan(1)
          .containsOnly(performed.getFirst());
      List<JournalEntry.StepCompleted> ends = stepEnds(call);
      assertThat(ends)
          .as("no attempt ended the call as failed")
          .noneMatch(c -> c.disposition() == Disposition.STEP_DONE)
          .noneMatch(c -> c.reason() == CompletionReason.RETRIES_EXHAUSTED);
      JsonNode tail = ends.getLast().trajectoryTail().orElseThrow();
      assertThat(ends.getLast().disposition()).isEqualTo(Disposition.PARK);
      assertThat(tail.path("diagnostic").asText()).isEqualTo("effect_outcome_unknown");
      assertThat(tail.path("idempotencyKey").asText()).isEqualTo(performed.getFirst());
      assertThat(tail.path("message").asText())
          .contains("may have performed it", "flows runs resolve " + call.value());

      resolvedPerformedFinishes(root, call, performed.getFirst());
    }
  }

  @Test
  void aCallThatTimesOutWithNoRetryPolicyAfterTheServerPerformedItParksAndResolvesPerformed(
      @TempDir Path dir) throws Exception {
    Path ledger = dir.resolve("ledger");
    try (FlowsEngine engine = EngineEndToEndTest.engine(journal, SdkConfig.DEFAULTS)) {
      RunRef root =
          engine
              .start(
                  flow(dir, ledger, "ledger", ".timeout(Duration.ofMillis(1500))", "hang", ""),
                  JsonNodeFactory.instance.objectNode(),
                  Optional.empty())
              .runId();
      engine.startWorker();

      RunRef call = parkedCall(root);
      assertThat(journal.run(call).orElseThrow().steps().getFirst().attempts())
          .as("a timeout is not retried")
          .isEqualTo(1);

      List<String> performed = Files.readAllLines(ledger);
      assertThat(performed).as("the server performed the call").hasSize(1);
      List<JournalEntry.StepCompleted> ends = stepEnds(call);
      assertThat(ends).hasSize(1);
      assertThat(ends.getFirst().disposition()).isEqualTo(Disposition.PARK);
      JsonNode tail = ends.getFirst().trajectoryTail().orElseThrow();
      assertThat(tail.path("diagnostic").asText()).isEqualTo("effect_outcome_unknown");
      assertThat(tail.path("lastDiagnostic").asText()).isEqualTo("timeout");
      assertThat(tail.path("idempotencyKey").asText()).isEqualTo(performed.getFirst());
      assertThat(tail.path("message").asText())
          .contains("may have performed it", "flows runs resolve " + call.value());

      resolvedPerformedFinishes(root, call, performed.getFirst());
    }
  }

  /** The operator's {@code resolve --performed} of the parked call lets the flow finish with it. */
  private static void resolvedPerformedFinishes(RunRef root, RunRef call, String key)
      throws Exception {
    journal.resolveStep(
        call,
        "call",
        Optional.of(
            Jackson.mapper()
                .readTree(
                    "{\"content\":[{\"type\":\"text\",\"text\":\"performed " + key + "\"}]}")),
        "ops");
    RunSnapshot done = awaitStatus(root, RunStatus.SUCCEEDED);
    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(done.steps().getFirst().output().orElseThrow().path("said").asText())
        .isEqualTo("performed " + key);
  }
}
