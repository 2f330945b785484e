package dev.flows.examples.flows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.embed.Flows;
import dev.flows.embed.RunHandle;
import dev.flows.embed.RunParkedException;
import dev.flows.embed.RunState;
import dev.flows.embed.StartOptions;
import dev.flows.examples.servers.ExamplesConfig;
import dev.flows.examples.servers.IdempotencyLedger;
import dev.flows.examples.servers.PaymentsServer;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.RunId;
import dev.flows.sdk.compile.FlowSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * confirmed_refund.flow.java embedded in an application ({@code Flows}) against the payments server
 * on 2026-07-28: the refund call asks for a confirmation ({@code input_required}), the run parks,
 * the application answers with {@link Flows#answer} and the refund is performed once.
 */
class ConfirmedRefundFlowTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "refund-test-token";
  // One server per test: its ledger shows only that test's refunds.
  private static PaymentsServer payments;

  @BeforeEach
  void start() throws Exception {
    payments = PaymentsServer.start(ExamplesConfig.defaults(), 0, TOKEN);
  }

  @AfterEach
  void stop() throws Exception {
    payments.close();
  }

  /** The journal of the database {@code flows} was built on, read as an operator would. */
  private java.util.List<dev.flows.kernel.journal.JournalRecord> entriesOf(RunRef run) {
    try (PostgresJournal j = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
      return j.entries(run);
    }
  }

  private String url;

  private Flows flows(Path dir, Flow<?, ?> flow, String db) throws Exception {
    ObjectNode p = JSON.createObjectNode();
    p.put("url", payments.endpoint().toString()).put("idempotencyKeys", true);
    p.putObject("auth").put("mode", "api-token").put("tokenEnv", PaymentsServer.TOKEN_ENV);
    ObjectNode config = JSON.createObjectNode();
    config.putObject("mcp").set("payments", p);
    Files.writeString(dir.resolve("flows.json"), config.toString());
    return Flows.builder()
        .jdbcUrl(url = TestDatabase.fresh(db).jdbcUrl())
        .migrate(true)
        .register(flow)
        .flowsJson(dir)
        .secrets(name -> name.equals(PaymentsServer.TOKEN_ENV) ? TOKEN : System.getenv(name))
        .worker(w -> w.pollInterval(Duration.ofMillis(50)))
        .build();
  }

  private static Flow<?, ?> compiled() {
    return FlowSource.compile(ExampleFlowsTest.FLOWS.resolve("confirmed_refund.flow.java")).flow();
  }

  /** The run, once parked (the body waits on the parked refund call). */
  private static RunParkedException awaitParked(RunHandle<JsonNode> h) throws Exception {
    long until = System.nanoTime() + Runs.SETTLE_DEADLINE.toNanos();
    while (System.nanoTime() < until) {
      try {
        h.result(Duration.ofSeconds(2));
        throw new AssertionError("the refund completed without a confirmation");
      } catch (RunParkedException parked) {
        return parked;
      } catch (dev.flows.embed.ResultTimeoutException notYet) {
        // still running
      }
    }
    throw new AssertionError("the run did not park: " + h.snapshot());
  }

  /** The payments ledger's keys of refund calls. */
  private static Map<String, IdempotencyLedger.Count> refundKeys() {
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
  void aRefundParksForItsConfirmationAndRefundsOnceTheApplicationAnswers(@TempDir Path dir)
      throws Exception {
    Flow<?, ?> flow = compiled();
    try (Flows flows = flows(dir, flow, "confirmed_refund")) {
      RunHandle<JsonNode> h =
          flows.start(
              "confirmed_refund",
              Map.of("email", "ivy@example.com", "amountCents", 1200, "currency", "EUR"),
              StartOptions.key("refund-ivy"));
      RunParkedException parked = awaitParked(h);
      assertThat(parked.code()).isEqualTo(ErrorCode.INPUT_REQUIRED.wire());
      RunId call = parked.parkedRun();
      assertThat(parked.stepId()).isEqualTo("call");
      assertThat(refundKeys()).as("nothing refunded before the confirmation").isEmpty();

      // An answer the form refuses is refused and writes nothing.
      assertThatThrownBy(
              () -> flows.answer(call, "call", JSON.createObjectNode().put("confirm", "yes")))
          .isInstanceOfSatisfying(
              FlowsError.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT.wire()));
      assertThat(flows.handle(call).state()).isEqualTo(RunState.PARKED);

      flows.answer(call, "call", JSON.createObjectNode().put("confirmAmountCents", 1200));
      JsonNode out = h.result(Runs.SETTLE_DEADLINE);
      assertThat(out.path("status").asText()).isEqualTo("refunded");
      assertThat(out.path("refund").asText()).startsWith("rf_");

      Map<String, IdempotencyLedger.Count> refunds = refundKeys();
      assertThat(refunds).hasSize(1);
      IdempotencyLedger.Count counts = refunds.values().iterator().next();
      assertThat(counts.performed()).isEqualTo(1);
      // Only the confirmed re-issue reaches the ledger: the first round asked, and did nothing.
      assertThat(counts.requests()).isEqualTo(1);
    }
  }

  @Test
  void aSmallRefundIsConfirmedByTheFlowItselfWithoutParking(@TempDir Path dir) throws Exception {
    Flow<?, ?> flow = compiled();
    try (Flows flows = flows(dir, flow, "confirmed_refund_auto")) {
      RunHandle<JsonNode> h =
          flows.start(
              "confirmed_refund",
              Map.of(
                  "email",
                  "jo@example.com",
                  "amountCents",
                  300,
                  "currency",
                  "EUR",
                  "autoConfirmCents",
                  500),
              StartOptions.key("refund-jo"));
      JsonNode out = h.result(Runs.SETTLE_DEADLINE);
      assertThat(out.path("status").asText()).isEqualTo("refunded");
      assertThat(out.path("amountCents").asLong()).isEqualTo(300);
      assertThat(entriesOf(new RunRef(h.runId().value())))
          .as("the flow's confirmation is journaled as a memo")
          .anySatisfy(
              r ->
                  assertThat(r.entry())
                      .isInstanceOfSatisfying(
                          dev.flows.kernel.journal.JournalEntry.EffectConfirmed.class,
                          c -> assertThat(c.surfacePath()).isEqualTo("/memo/2/input/1")));
    }
  }
}
