package dev.flows.examples.flows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.examples.servers.ExamplesConfig;
import dev.flows.examples.servers.IdempotencyLedger;
import dev.flows.examples.servers.PaymentsServer;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The example flow files through the real engine (preflight, lowering, worker, MCP executor) on the
 * in-memory journal, against the example servers: tickets started by its launcher exactly as the
 * shipped flows.json says, payments in-process on a free port.
 */
class ExampleFlowsEngineTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "engine-test-token";

  private static PaymentsServer payments;
  private final Journal journal = new InMemoryJournal(Clock.systemUTC());

  @BeforeAll
  static void startPayments() throws Exception {
    payments = PaymentsServer.start(ExamplesConfig.defaults(), 0, TOKEN);
  }

  @AfterAll
  static void stopPayments() throws Exception {
    payments.close();
  }

  /** The shipped flows.json with payments moved to this test's port. */
  private static Path flowsJson(Path dir) throws Exception {
    return flowsJson(dir, payments.endpoint(), Optional.empty());
  }

  /** The shipped flows.json in {@code dir}, payments at {@code paymentsEndpoint}. */
  static Path flowsJson(Path dir, java.net.URI paymentsEndpoint) throws Exception {
    return flowsJson(dir, paymentsEndpoint, Optional.empty());
  }

  /**
   * The shipped flows.json in {@code dir}, payments at {@code paymentsEndpoint}, the example
   * servers pinned to {@code protocol} when given.
   */
  static Path flowsJson(Path dir, java.net.URI paymentsEndpoint, Optional<String> protocol)
      throws Exception {
    JsonNode shipped =
        JSON.readTree(Files.readString(ExampleFlowsTest.FLOWS.resolve("flows.json")));
    ObjectNode mcp = (ObjectNode) shipped.path("mcp").deepCopy();
    ((ObjectNode) mcp.get("tickets")).put("cwd", ExampleFlowsTest.FLOWS.toString());
    ((ObjectNode) mcp.get("payments")).put("url", paymentsEndpoint.toString());
    protocol.ifPresent(
        p -> {
          ((ObjectNode) mcp.get("tickets")).put("protocol", p);
          ((ObjectNode) mcp.get("payments")).put("protocol", p);
        });
    everythingScript()
        .ifPresent(
            script -> {
              ObjectNode everything = (ObjectNode) mcp.get("everything");
              // Offline: the installed reference server instead of npx fetching it.
              everything.put("command", "node");
              everything.putArray("args").add(script.toString()).add("stdio");
            });
    Files.writeString(
        dir.resolve("flows.json"),
        JSON.writeValueAsString(JSON.createObjectNode().set("mcp", mcp)));
    return dir;
  }

  /** server-everything's dist/index.js, when FLOWS_EVERYTHING_SERVER names one. */
  static Optional<Path> everythingScript() {
    return Optional.ofNullable(System.getenv("FLOWS_EVERYTHING_SERVER"))
        .filter(s -> !s.isBlank())
        .map(Path::of)
        .filter(Files::isRegularFile);
  }

  private static FlowsEngine engine(Journal journal) {
    return new FlowsEngine(
        journal,
        WorkerConfig.defaults().toBuilder().pollInterval(Duration.ofMillis(50)).build(),
        SdkConfig.DEFAULTS,
        McpClientConfig.DEFAULTS,
        Runs.withPaymentsToken(TOKEN));
  }

  static LoadedFlow load(String file, Path configDir) {
    LoadedFlow shipped =
        LoadedFlow.load(ExampleFlowsTest.FLOWS.resolve(file).toString(), ExampleFlowsTest.FLOWS);
    return new LoadedFlow(shipped.flow(), shipped.origin(), shipped.bodyServers(), configDir);
  }

  /** Starts {@code file} with {@code input} and runs it to its end; it must succeed. */
  private RunSnapshot succeeded(String file, Path dir, String input) throws Exception {
    return succeededWith(file, flowsJson(dir), input);
  }

  /** As {@link #succeeded}, with the flows.json in {@code configDir}. */
  private RunSnapshot succeededWith(String file, Path configDir, String input) throws Exception {
    try (FlowsEngine engine = engine(journal)) {
      RunRef root =
          engine.start(load(file, configDir), JSON.readTree(input), Optional.empty()).runId();
      engine.startWorker();
      RunSnapshot s = Runs.awaitSettled(journal, root);
      assertThat(s.status()).as(s.toString()).isEqualTo(RunStatus.SUCCEEDED);
      return s;
    }
  }

  private List<JsonNode> receipts(RunRef root) {
    return journal.children(root).stream()
        .map(c -> journal.run(c).orElseThrow().steps().getFirst().output().orElseThrow())
        .toList();
  }

  @Test
  void theTriageFlowSucceedsWithFourReceiptsAndEachPaymentsKeyPerformedOnce(@TempDir Path dir)
      throws Exception {
    RunSnapshot done =
        succeeded(
            "triage.flow.java",
            dir,
            "{\"email\":\"noor@example.com\",\"message\":\"I was double charged, refund ASAP\"}");
    JsonNode out = done.steps().getFirst().output().orElseThrow();
    assertThat(out.path("ticket").asText()).startsWith("T-");
    assertThat(out.path("category").asText()).isEqualTo("billing");
    assertThat(out.path("priority").asText()).isEqualTo("urgent");
    assertThat(out.path("credit").asText()).startsWith("cr_");
    List<JsonNode> receipts = receipts(done.runId());
    assertThat(receipts)
        .extracting(r -> r.path("server").asText() + "/" + r.path("tool").asText())
        .containsExactlyInAnyOrder(
            "tickets/classify",
            "payments/create_customer",
            "payments/credit",
            "tickets/create_ticket");
    for (JsonNode r : receipts) {
      if (r.path("server").asText().equals("payments")) {
        IdempotencyLedger.Count c =
            payments.ledger().counts().get(r.path("idempotencyKey").asText());
        assertThat(c).as("the server saw the receipt's key in _meta").isNotNull();
        assertThat(c.performed()).isEqualTo(1);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"2026-07-28", "2025-11-25", "2025-06-18"})
  void theTriageFlowRunsUnchangedOnEachRevisionAndItsReceiptsSayWhichAnswered(
      String protocol, @TempDir Path dir) throws Exception {
    RunSnapshot done =
        succeededWith(
            "triage.flow.java",
            flowsJson(dir, payments.endpoint(), Optional.of(protocol)),
            "{\"email\":\"rev@example.com\",\"message\":\"I was double charged, refund ASAP\"}");
    List<JsonNode> receipts = receipts(done.runId());
    assertThat(receipts).hasSize(4);
    assertThat(receipts).extracting(r -> r.path("protocolVersion").asText()).containsOnly(protocol);
    for (JsonNode r : receipts) {
      if (r.path("server").asText().equals("payments")) {
        assertThat(payments.ledger().counts().get(r.path("idempotencyKey").asText()).performed())
            .isEqualTo(1);
      }
    }
  }

  @Test
  void thePaymentFlowChargesOnceAndReturnsTheChargeReceipt(@TempDir Path dir) throws Exception {
    RunSnapshot done =
        succeeded(
            "payment.flow.java",
            dir,
            "{\"email\":\"sam@example.com\",\"amountCents\":1234,\"currency\":\"usd\"}");
    JsonNode out = done.steps().getFirst().output().orElseThrow();
    assertThat(out.path("charge").asText()).startsWith("ch_");
    assertThat(out.path("amountCents").asLong()).isEqualTo(1234);
    assertThat(out.path("currency").asText()).isEqualTo("USD");
    IdempotencyLedger.Count c = payments.ledger().counts().get(out.path("idempotencyKey").asText());
    assertThat(c.tool()).isEqualTo("charge");
    assertThat(c.performed()).isEqualTo(1);
  }

  @Test
  void theEverythingFlowEchoesAndSumsThroughTheEngine(@TempDir Path dir) throws Exception {
    assumeTrue(
        everythingScript().isPresent(),
        "FLOWS_EVERYTHING_SERVER does not name server-everything's dist/index.js");
    RunSnapshot done =
        succeeded("everything.flow.java", dir, "{\"message\":\"ping\",\"a\":40,\"b\":2}");
    JsonNode out = done.steps().getFirst().output().orElseThrow();
    assertThat(out.path("echo").asText()).contains("ping");
    assertThat(out.path("sum").asText()).contains("42");
  }
}
