package dev.flows.examples.flows;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.examples.servers.ExamplesConfig;
import dev.flows.examples.servers.PaymentsServer;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * approval.flow.java through the engine on Postgres, against the payments server: a refund above
 * the threshold waits for the signal {@code approve}, then charges; without one it cancels at its
 * timeout (given short in the input instead of the 24 h default).
 */
class ApprovalFlowTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "approval-test-token";
  private static PaymentsServer payments;
  private static PostgresJournal journal;

  @BeforeAll
  static void start() throws Exception {
    payments = PaymentsServer.start(ExamplesConfig.defaults(), 0, TOKEN);
    journal =
        PostgresJournal.connect(
            JournalStoreConfig.forUrl(TestDatabase.fresh("approval").jdbcUrl()));
  }

  @AfterAll
  static void stop() throws Exception {
    journal.close();
    payments.close();
  }

  private static LoadedFlow approval(Path dir) throws Exception {
    ObjectNode mcp = JSON.createObjectNode();
    ObjectNode p = mcp.putObject("payments");
    p.put("url", payments.endpoint().toString()).put("idempotencyKeys", true);
    p.putObject("auth").put("mode", "api-token").put("tokenEnv", "PAYMENTS_TOKEN");
    Files.writeString(
        dir.resolve("flows.json"),
        JSON.writeValueAsString(JSON.createObjectNode().set("mcp", mcp)));
    LoadedFlow shipped =
        LoadedFlow.load(
            ExampleFlowsTest.FLOWS.resolve("approval.flow.java").toString(),
            ExampleFlowsTest.FLOWS);
    return new LoadedFlow(shipped.flow(), shipped.origin(), shipped.bodyServers(), dir);
  }

  private static FlowsEngine engine() {
    return new FlowsEngine(
        journal,
        WorkerConfig.defaults().toBuilder().pollInterval(Duration.ofMillis(50)).build(),
        SdkConfig.DEFAULTS,
        McpClientConfig.DEFAULTS,
        Runs.withPaymentsToken(TOKEN));
  }

  private static void awaitSuspended(RunRef run) throws InterruptedException {
    long until = System.nanoTime() + Runs.SETTLE_DEADLINE.toNanos();
    while (journal.run(run).orElseThrow().steps().getFirst().status() != StepStatus.READY) {
      assertThat(System.nanoTime()).as("the body waits for approval").isLessThan(until);
      Thread.sleep(20);
    }
  }

  @Test
  void aRefundAboveTheThresholdWaitsForApproveAndThenCharges(@TempDir Path dir) throws Exception {
    try (FlowsEngine engine = engine()) {
      RunRef run =
          engine
              .start(approval(dir), JSON.readTree("{\"amountCents\":25000}"), Optional.empty())
              .runId();
      engine.startWorker();
      awaitSuspended(run);
      assertThat(journal.children(run)).as("nothing charged before approval").isEmpty();

      journal.sendSignal(
          run, "approve", JSON.readTree("{\"approved\":true,\"by\":\"ann\"}"), Optional.empty());

      RunSnapshot done = Runs.awaitSettled(journal, run);
      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode out = done.steps().getFirst().output().orElseThrow();
      assertThat(out.path("status").asText()).isEqualTo("charged");
      assertThat(out.path("approvedBy").asText()).isEqualTo("ann");
      assertThat(out.path("charge").asText()).isNotBlank();
    }
  }

  @Test
  void aRefundWithoutApprovalIsCancelledAtItsTimeoutWithoutCharging(@TempDir Path dir)
      throws Exception {
    try (FlowsEngine engine = engine()) {
      RunRef run =
          engine
              .start(
                  approval(dir),
                  JSON.readTree("{\"amountCents\":25000,\"approvalTimeout\":\"PT2S\"}"),
                  Optional.empty())
              .runId();
      engine.startWorker();
      RunSnapshot done = Runs.awaitSettled(journal, run);
      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode out = done.steps().getFirst().output().orElseThrow();
      assertThat(out.path("status").asText()).isEqualTo("cancelled");
      assertThat(out.path("reason").asText()).isEqualTo("no approval within PT2S");
      assertThat(journal.children(run)).as("nothing charged").isEmpty();
    }
  }

  @Test
  void aRefundUnderTheThresholdChargesWithoutWaiting(@TempDir Path dir) throws Exception {
    try (FlowsEngine engine = engine()) {
      RunRef run =
          engine
              .start(approval(dir), JSON.readTree("{\"amountCents\":500}"), Optional.empty())
              .runId();
      engine.startWorker();
      RunSnapshot done = Runs.awaitSettled(journal, run);
      assertThat(done.steps().getFirst().output().orElseThrow().path("status").asText())
          .isEqualTo("charged");
      assertThat(done.steps().getFirst().attempts()).isEqualTo(1);
    }
  }
}
