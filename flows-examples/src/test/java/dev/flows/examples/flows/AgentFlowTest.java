package dev.flows.examples.flows;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.embed.Flows;
import dev.flows.embed.RunHandle;
import dev.flows.embed.RunParkedException;
import dev.flows.embed.StartOptions;
import dev.flows.examples.servers.ExamplesConfig;
import dev.flows.examples.servers.IdempotencyLedger;
import dev.flows.examples.servers.PaymentsServer;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.RunId;
import dev.flows.sdk.compile.FlowSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * agent.flow.java end to end, embedded ({@code Flows}) on Postgres: the scripted model of
 * flows-examples/models/agent.json (through LangChain4j's real client) calls the example tickets
 * and payments servers; its refund waits for approval, then for the payments server's own
 * confirmation, both answered with {@link Flows#answer}.
 */
class AgentFlowTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "agent-test-token";
  static final Path SCRIPT = ExampleFlowsTest.FLOWS.resolveSibling("models").resolve("agent.json");

  /** The shipped flows.json in {@code dir}: payments and the model where this test runs them. */
  static Path flowsJson(Path dir, java.net.URI payments, String modelBaseUrl) throws Exception {
    ExampleFlowsEngineTest.flowsJson(dir, payments);
    ObjectNode config = (ObjectNode) JSON.readTree(Files.readString(dir.resolve("flows.json")));
    JsonNode shipped =
        JSON.readTree(Files.readString(ExampleFlowsTest.FLOWS.resolve("flows.json")));
    ObjectNode models = (ObjectNode) shipped.path("models").deepCopy();
    ((ObjectNode) models.get("support")).put("baseUrl", modelBaseUrl);
    config.set("models", models);
    Files.writeString(dir.resolve("flows.json"), config.toString());
    return dir;
  }

  private static RunParkedException awaitParked(RunHandle<JsonNode> h) throws Exception {
    long until = System.nanoTime() + Runs.SETTLE_DEADLINE.toNanos();
    while (System.nanoTime() < until) {
      try {
        h.result(Duration.ofSeconds(2));
        throw new AssertionError("the run ended without parking");
      } catch (RunParkedException parked) {
        return parked;
      } catch (dev.flows.embed.ResultTimeoutException notYet) {
        // still running
      }
    }
    throw new AssertionError("the run did not park: " + h.snapshot());
  }

  private static Map<String, IdempotencyLedger.Count> refunds(PaymentsServer payments) {
    Map<String, IdempotencyLedger.Count> out = new java.util.TreeMap<>();
    payments
        .ledger()
        .counts()
        .forEach(
            (k, c) -> {
              if (c.tool().equals("refund")) {
                out.put(k, c);
              }
            });
    return out;
  }

  @Test
  void theAgentRefundsOnceAfterItsApprovalAndTheServersConfirmationAndAnswersTheCustomer(
      @TempDir Path dir) throws Exception {
    try (PaymentsServer payments = PaymentsServer.start(ExamplesConfig.defaults(), 0, TOKEN);
        ScriptedModelServer model = ScriptedModelServer.start(ScriptedModel.fromFile(SCRIPT))) {
      flowsJson(dir, payments.endpoint(), model.baseUrl());
      try (Flows flows =
          Flows.builder()
              .jdbcUrl(TestDatabase.fresh("agent_flow").jdbcUrl())
              .migrate(true)
              .register(
                  FlowSource.compile(ExampleFlowsTest.FLOWS.resolve("agent.flow.java")).flow())
              .flowsJson(dir)
              .secrets(name -> name.equals(PaymentsServer.TOKEN_ENV) ? TOKEN : System.getenv(name))
              .worker(w -> w.pollInterval(Duration.ofMillis(50)))
              .build()) {
        RunHandle<JsonNode> h = flows.start("agent", Map.of(), StartOptions.key("agent-ada"));

        RunParkedException approval = awaitParked(h);
        assertThat(approval.code()).isEqualTo(ErrorCode.INPUT_REQUIRED.wire());
        JsonNode asked = approval.diagnostic().at("/inputRequests/approval/params");
        assertThat(asked.path("tool").asText()).isEqualTo("refund");
        assertThat(asked.path("arguments").path("amountCents").asLong()).isEqualTo(1200);
        assertThat(refunds(payments))
            .as("nothing reaches the server before the approval")
            .isEmpty();
        RunId call = approval.parkedRun();
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> flows.answer(call, "call", JSON.createObjectNode().put("approve", "yes")))
            .isInstanceOfSatisfying(
                FlowsError.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.APPROVAL_ANSWER_INVALID.wire()));

        flows.answer(call, "call", JSON.createObjectNode().put("approve", true));
        RunParkedException confirm = awaitParked(h);
        assertThat(confirm.diagnostic().has("inputRequests")).isTrue();
        assertThat(confirm.diagnostic().at("/inputRequests/approval").isMissingNode()).isTrue();
        flows.answer(
            confirm.parkedRun(), "call", JSON.createObjectNode().put("confirmAmountCents", 1200));
        JsonNode out = h.result(Runs.SETTLE_DEADLINE);

        assertThat(out.path("answer").asText()).contains("refunded 12.00 EUR");
        assertThat(refunds(payments)).hasSize(1);
        assertThat(refunds(payments).values().iterator().next().performed()).isEqualTo(1);
        // Three turns: a replay after each park answered the earlier turns from the journal.
        assertThat(model.requests()).hasSize(3);
        JsonNode last = model.requests().get(2).path("messages");
        assertThat(last.toString()).contains("rf_").contains("T-");
      }
    }
  }
}
