package dev.flows.examples.flows;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.examples.servers.Clients;
import dev.flows.examples.servers.ExamplesConfig;
import dev.flows.examples.servers.IdempotencyLedger;
import dev.flows.examples.servers.PaymentsServer;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.sdk.runtime.TestWorkerMain;
import dev.flows.worker.FaultPoint;
import dev.flows.worker.WorkerConfig;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * payment.flow.java on Postgres with real worker JVMs: the worker dies after the payments server
 * performed the charge but before the effect was confirmed. flows.json declares the server honours
 * idempotency keys, so the next worker sends the charge again with the same key, and the server
 * answers the original charge without charging twice.
 */
class PaymentCrashTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "crash-test-token";
  private static final Duration LEASE = Duration.ofSeconds(2);

  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;
  private static PaymentsServer payments;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("examples_payment_crash");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()));
    payments = PaymentsServer.start(ExamplesConfig.defaults(), 0, TOKEN);
  }

  @AfterAll
  static void tearDown() throws Exception {
    payments.close();
    journal.close();
  }

  private static Process worker(Optional<String> faultArgs, File log) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Clients.java());
    cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    faultArgs.ifPresent(f -> cmd.addAll(List.of(f.split(" "))));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    cmd.add(TestWorkerMain.class.getName());
    cmd.add(db.jdbcUrl());
    cmd.add(String.valueOf(LEASE.toMillis()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log);
    pb.environment().put(PaymentsServer.TOKEN_ENV, TOKEN);
    return pb.start();
  }

  @Test
  void aWorkerKilledAfterTheChargeBeforeConfirmIsReplacedAndTheChargeHappensOnce(@TempDir Path dir)
      throws Exception {
    Files.writeString(
        dir.resolve("flows.json"),
        JSON.writeValueAsString(
            Map.of(
                "mcp",
                Map.of(
                    "payments",
                    Map.of(
                        "url", payments.endpoint().toString(),
                        "auth", Map.of("mode", "api-token", "tokenEnv", PaymentsServer.TOKEN_ENV),
                        "idempotencyKeys", true)))));
    LoadedFlow shipped =
        LoadedFlow.load(
            ExampleFlowsTest.FLOWS.resolve("payment.flow.java").toString(), ExampleFlowsTest.FLOWS);
    LoadedFlow flow = new LoadedFlow(shipped.flow(), shipped.origin(), shipped.bodyServers(), dir);
    RunRef root;
    // This engine only preflights and admits; the workers are separate processes.
    try (FlowsEngine admit =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            Runs.withPaymentsToken(TOKEN))) {
      root =
          admit
              .start(flow, JSON.readTree("{\"email\":\"crash@example.com\"}"), Optional.empty())
              .runId();
    }

    // The first call site reached is create_customer's; skip it and die at the charge's.
    Process dying =
        worker(
            Optional.of(
                "-Dflows.fault="
                    + FaultPoint.AFTER_CALL_BEFORE_CONFIRM.wire()
                    + " -Dflows.fault.skip=1"),
            dir.resolve("dying.log").toFile());
    assertThat(dying.waitFor(Runs.SETTLE_DEADLINE.toSeconds(), TimeUnit.SECONDS))
        .as("the faulty worker died")
        .isTrue();
    assertThat(dying.exitValue()).isEqualTo(FaultPoint.HALT_STATUS);
    assertThat(payments.ledger().counts().values())
        .as("the charge was performed before the worker died")
        .anySatisfy(c -> assertThat(c.tool()).isEqualTo("charge"));

    Process healthy = worker(Optional.empty(), dir.resolve("healthy.log").toFile());
    RunSnapshot done;
    try {
      done = Runs.awaitSettled(journal, root);
    } finally {
      healthy.destroy();
      healthy.waitFor(Runs.SETTLE_DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }

    assertThat(done.status()).as(done.toString()).isEqualTo(RunStatus.SUCCEEDED);
    JsonNode out = done.steps().getFirst().output().orElseThrow();
    IdempotencyLedger.Count charge =
        payments.ledger().counts().get(out.path("idempotencyKey").asText());
    assertThat(charge.tool()).isEqualTo("charge");
    assertThat(charge.requests()).as("sent again after the crash").isEqualTo(2);
    assertThat(charge.performed()).as("charged once").isEqualTo(1);
    for (RunRef c : journal.children(root)) {
      assertThat(journal.entries(c))
          .as("one confirmation per call")
          .filteredOn(r -> r.entry() instanceof JournalEntry.EffectConfirmed)
          .hasSize(1);
    }
  }
}
