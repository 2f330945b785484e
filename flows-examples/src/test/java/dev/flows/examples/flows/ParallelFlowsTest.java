package dev.flows.examples.flows;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.examples.servers.ExamplesConfig;
import dev.flows.examples.servers.PaymentsServer;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * fanout.flow.java (ten tickets classified at once) and parent.flow.java with its child
 * refund.flow.java, through the engine on Postgres against the example servers.
 */
class ParallelFlowsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "parallel-test-token";
  private static PaymentsServer payments;
  private static PostgresJournal journal;

  @BeforeAll
  static void start() throws Exception {
    payments = PaymentsServer.start(ExamplesConfig.defaults(), 0, TOKEN);
    journal =
        PostgresJournal.connect(
            JournalStoreConfig.forUrl(TestDatabase.fresh("parallel_examples").jdbcUrl()));
  }

  @AfterAll
  static void stop() throws Exception {
    journal.close();
    payments.close();
  }

  private static RunSnapshot run(String file, Path dir, String input) throws Exception {
    try (FlowsEngine engine =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder().pollInterval(Duration.ofMillis(50)).build(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            Runs.withPaymentsToken(TOKEN))) {
      RunRef root =
          engine
              .start(
                  ExampleFlowsEngineTest.load(
                      file, ExampleFlowsEngineTest.flowsJson(dir, payments.endpoint())),
                  JSON.readTree(input),
                  Optional.empty())
              .runId();
      engine.startWorker();
      return Runs.awaitSettled(journal, root);
    }
  }

  private static JsonNode output(RunSnapshot s) {
    return s.steps().getFirst().output().orElseThrow();
  }

  @Test
  void theFanoutFlowClassifiesTenTicketsInTheOrderTheyCame(@TempDir Path dir) throws Exception {
    RunSnapshot done = run("fanout.flow.java", dir, "{}");

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    JsonNode out = output(done);
    assertThat(out.path("tickets")).hasSize(10);
    assertThat(out.path("tickets").get(0).path("category").asText()).isEqualTo("billing");
    assertThat(out.path("tickets").get(1).path("category").asText()).isEqualTo("bug");
    int counted = 0;
    for (JsonNode n : out.path("byCategory")) {
      counted += n.asInt();
    }
    assertThat(counted).isEqualTo(10);
    List<RunRef> calls = journal.children(done.runId());
    assertThat(calls).hasSize(10);
    assertThat(calls.stream().map(c -> output(journal.run(c).orElseThrow()).path("idempotencyKey")))
        .as("one call, with its own key, per ticket")
        .doesNotHaveDuplicates();
  }

  @Test
  void theParentFlowGetsItsRefundChildFlowsResult(@TempDir Path dir) throws Exception {
    RunSnapshot done = run("parent.flow.java", dir, "{\"amountCents\":1200}");

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    JsonNode out = output(done);
    assertThat(out.path("status").asText()).isEqualTo("refunded");
    assertThat(out.path("refund").path("credit").asText()).startsWith("cr_");
    List<RunRef> children = journal.children(done.runId());
    assertThat(children).hasSize(2);
    RunSnapshot refund = journal.run(children.get(1)).orElseThrow();
    assertThat(refund.spec().path("name").asText()).isEqualTo("refund");
    assertThat(refund.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(journal.children(refund.runId())).as("the child's own credit call").hasSize(1);
  }

  @Test
  void aRefundTheChildFlowRefusesReachesTheParentAsChildFailedException(@TempDir Path dir)
      throws Exception {
    RunSnapshot done = run("parent.flow.java", dir, "{\"amountCents\":90000}");

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    JsonNode out = output(done);
    assertThat(out.path("status").asText()).isEqualTo("refund_refused");
    assertThat(out.path("reason").asText()).contains("90000 cents").contains("needs a person");
    RunSnapshot refund = journal.run(journal.children(done.runId()).get(1)).orElseThrow();
    assertThat(refund.status()).isEqualTo(RunStatus.FAILED);
  }
}
