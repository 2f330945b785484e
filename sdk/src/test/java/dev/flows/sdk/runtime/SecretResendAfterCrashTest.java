package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.keys.SecretKeys;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.FaultPoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A call with a secret argument whose worker dies (halts) while the call is out is sent again by
 * the next worker with the argument opened, from the sealed form the journal holds: the server adds
 * the secret number, which it could not do with the sealed string.
 */
class SecretResendAfterCrashTest {
  private static final Duration LEASE = TestWorkerMain.LEASE;
  private static final String KEY_VAR = "FLOWS_TEST_SECRET_KEY";

  private static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Resend implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("resend").version("1").mcp("idem").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          long pin = Long.getLong("flows.test.pin");
          String sum =
              f.mcp("idem").tool("add").secret("/a").call(Map.of("a", pin, "b", 1)).text();
          return JsonNodeFactory.instance.objectNode().put("sum", sum);
        }
      }
      """;

  private TestDatabase.Fresh db;
  private PostgresJournal journal;
  private FlowsEngine engine;
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.fresh("secret_resend");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()));
    // The test server is a JVM of its own: on a loaded machine it starts slower than the default.
    engine =
        new FlowsEngine(
            journal,
            dev.flows.worker.WorkerConfig.defaults(),
            SdkConfig.DEFAULTS.toBuilder().preflightTimeout(Duration.ofSeconds(60)).build(),
            dev.flows.kernel.mcp.McpClientConfig.DEFAULTS,
            dev.flows.mcp.client.McpCredentials.fromEnvironment());
    dir = Files.createTempDirectory("secret-resend");
  }

  @AfterEach
  void tearDown() {
    engine.close();
    journal.close();
  }

  private LoadedFlow flow() throws Exception {
    JsonNode s = McpServerConfigJson.write(Jvm.stdioServer("idem", List.of(), Map.of()));
    Files.writeString(dir.resolve("resend.flow.java"), FLOW);
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"secrets\": {\"keyEnv\": \""
            + KEY_VAR
            + "\"}, \"mcp\": {\"idem\": {\"command\": "
            + s.path("command")
            + ", \"args\": "
            + s.path("args")
            + ", \"idempotencyKeys\": true}}}");
    return LoadedFlow.load(dir.resolve("resend.flow.java").toString(), dir);
  }

  private RunSnapshot awaitSettled(RunRef run) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal.run(run).orElseThrow();
      if (s.status().terminal() || s.status() == RunStatus.PARKED) {
        return s;
      }
      journal.awaitWork(Duration.ofMillis(200));
    }
    throw new AssertionError("run did not settle: " + journal.run(run));
  }

  @Test
  void aCallWithASecretArgumentIsSentAgainOpenedAfterItsWorkerDiedMidCall() throws Exception {
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    Map<String, String> env = Map.of(KEY_VAR, Base64.getEncoder().encodeToString(key));
    long pin = 7_340_000_000L + (System.nanoTime() % 1_000_000);
    List<String> flags = List.of("-Dflows.test.pin=" + pin);
    RunRef root =
        engine.start(flow(), JsonNodeFactory.instance.objectNode(), Optional.empty()).runId();

    Process dying =
        TestWorkerMain.launch(
            db.jdbcUrl(), LEASE, Optional.of(FaultPoint.DURING_CALL), 0, flags, env);
    assertThat(dying.waitFor(120, TimeUnit.SECONDS)).as("the worker died mid-call").isTrue();
    assertThat(dying.exitValue()).isEqualTo(FaultPoint.HALT_STATUS);
    // What the dead worker held runs out now, not after a wait a busy machine could outlast.
    ExpiredLeases.all(db.jdbcUrl());
    Process healthy = TestWorkerMain.launch(db.jdbcUrl(), LEASE, Optional.empty(), 0, flags, env);
    RunSnapshot done;
    try {
      done = awaitSettled(root);
    } finally {
      healthy.destroy();
      healthy.waitFor(30, TimeUnit.SECONDS);
    }

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(done.steps().getFirst().output().orElseThrow().path("sum").asText())
        .isEqualTo(String.valueOf(pin + 1));
    RunRef call = journal.children(root).getFirst();
    List<JournalEntry> entries = journal.entries(call).stream().map(r -> r.entry()).toList();
    assertThat(entries)
        .as("the dead attempt's lease expired: the call was taken over and sent again")
        .anyMatch(
            e ->
                e instanceof JournalEntry.StepCompleted c
                    && c.reason().wire().equals("lease_expired"));
    String journaled = journal.run(call).orElseThrow().spec().toString() + entries;
    assertThat(journaled).contains(SecretKeys.PREFIX).doesNotContain(String.valueOf(pin));
  }
}
