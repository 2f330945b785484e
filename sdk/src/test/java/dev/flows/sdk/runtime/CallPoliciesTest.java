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
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.FaultPoint;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
 * Per-call policies on Postgres: an MCP call's timeout cancels the request on the wire and fails
 * {@code timeout}; a step's retry policy retries with backoff and ends {@code retries_exhausted};
 * {@code onUnknownOutcome} overrides what the annotations and flows.json decide after a crash.
 */
class CallPoliciesTest {
  private static final Duration LEASE = Duration.ofMillis(2_000);
  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;

  @BeforeAll
  static void setUp() {
    db = TestDatabase.fresh("call_policies");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()));
  }

  @AfterAll
  static void tearDown() {
    journal.close();
  }

  static final String SLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.time.Duration;
      import java.util.Map;

      public class Slow implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("slow").version("1").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          try {
            f.mcp("tools").tool("sleep").timeout(Duration.ofMillis(800))
                .onUnknownOutcome(UnknownOutcome.FAIL).call(Map.of("ms", 60000));
            return JsonNodeFactory.instance.objectNode().put("code", "none");
          } catch (ChildFailedException e) {
            return JsonNodeFactory.instance.objectNode().put("code", e.code());
          }
        }
      }
      """;

  @Test
  void aTimedOutMcpCallIsCancelledOnTheWireAndUnderOnUnknownOutcomeFailFailsOutcomeUnknown(
      @TempDir Path dir) throws Exception {
    Path log = dir.resolve("stdin.log");
    JsonNode s =
        McpServerConfigJson.write(Jvm.stdioServer("tools", List.of(), Map.of(), "--log=" + log));
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\"tools\": {\"command\": "
            + s.path("command")
            + ", \"args\": "
            + s.path("args")
            + "}}}");
    RunSnapshot done = runToEnd(dir, "slow.flow.java", SLOW);
    RunRef root = done.runId();

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    // The request went out: its outcome is unknown, and the call's policy fails it so.
    assertThat(done.steps().getFirst().output().orElseThrow().path("code").asText())
        .isEqualTo("effect_outcome_unknown");
    RunSnapshot call = journal.run(journal.children(root).getFirst()).orElseThrow();
    assertThat(call.status()).isEqualTo(RunStatus.FAILED);
    assertThat(
            journal.entries(call.runId()).stream()
                .map(r -> r.entry())
                .filter(e -> e instanceof JournalEntry.StepCompleted)
                .map(e -> ((JournalEntry.StepCompleted) e).trajectoryTail().orElseThrow())
                .map(t -> t.path("lastDiagnostic").asText())
                .toList())
        .containsExactly("timeout");
    assertThat(call.steps().getFirst().attempts()).as("a timeout is final by default").isEqualTo(1);
    assertThat(call.spec().at("/steps/0/timeoutMs").asLong()).isEqualTo(800);
    // The server read the cancellation of the very request it was sent.
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (cancels(log).isEmpty() && System.nanoTime() < until) {
      Thread.sleep(50);
    }
    JsonNode sent =
        lines(log).stream()
            .filter(l -> l.path("method").asText().equals("tools/call"))
            .findFirst()
            .orElseThrow();
    assertThat(cancels(log)).hasSize(1);
    assertThat(cancels(log).getFirst().at("/params/requestId")).isEqualTo(sent.path("id"));
  }

  static final String SHELL =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.time.Duration;

      public class Shell implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("shell").version("1").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          try {
            f.shell("sleep 30").timeout(Duration.ofMillis(500)).retry(RetryPolicy.attempts(2)
                .backoff(Duration.ofMillis(50), 1.0, Duration.ofMillis(50))).call();
            return JsonNodeFactory.instance.objectNode().put("code", "none");
          } catch (ChildFailedException e) {
            return JsonNodeFactory.instance.objectNode().put("code", e.code());
          }
        }
      }
      """;

  @Test
  void aCommandsPolicyBoundsEachAttemptAndItsAttemptsAndTheCallFailsTimeout(@TempDir Path dir)
      throws Exception {
    RunSnapshot done = runToEnd(dir, "shell.flow.java", SHELL);
    RunRef root = done.runId();

    assertThat(done.steps().getFirst().output().orElseThrow().path("code").asText())
        .isEqualTo("timeout");
    RunSnapshot command = journal.run(journal.children(root).getFirst()).orElseThrow();
    assertThat(command.steps().getFirst().attempts()).isEqualTo(2);
    assertThat(command.spec().at("/steps/0/timeoutMs").asLong()).isEqualTo(500);
  }

  /** Runs the flow {@code source} (file {@code file} in {@code dir}) on an in-process engine. */
  private static RunSnapshot runToEnd(Path dir, String file, String source) throws Exception {
    Files.writeString(dir.resolve(file), source);
    if (!Files.exists(dir.resolve("flows.json"))) {
      Files.writeString(dir.resolve("flows.json"), "{\"mcp\": {}}");
    }
    try (FlowsEngine engine = EngineEndToEndTest.engine(journal, SdkConfig.DEFAULTS)) {
      LoadedFlow flow = LoadedFlow.load(dir.resolve(file).toString(), dir);
      RunRef root =
          engine.start(flow, JsonNodeFactory.instance.objectNode(), Optional.empty()).runId();
      engine.startWorker();
      return EngineEndToEndTest.awaitTerminal(journal, root);
    }
  }

  private static List<JsonNode> lines(Path log) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    if (Files.exists(log)) {
      for (String l : Files.readAllLines(log)) {
        if (!l.isBlank()) {
          out.add(Jackson.mapper().readTree(l));
        }
      }
    }
    return out;
  }

  private static List<JsonNode> cancels(Path log) throws Exception {
    return lines(log).stream()
        .filter(l -> l.path("method").asText().equals("notifications/cancelled"))
        .toList();
  }

  static final String FLAKY =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import com.fasterxml.jackson.databind.node.ObjectNode;
      import dev.flows.sdk.*;
      import java.time.Duration;

      public class Flaky implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("flaky").version("1").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          ObjectNode out = JsonNodeFactory.instance.objectNode();
          try {
            f.step("down").retry(RetryPolicy.attempts(3)
                    .backoff(Duration.ofMillis(300), 2.0, Duration.ofSeconds(5)))
                .call(() -> { throw new IllegalStateException("still down"); });
          } catch (FlowsError e) {
            out.put("down", e.code()).put("downMessage", e.getMessage());
          }
          try {
            f.step("refused").retry(RetryPolicy.attempts(3)
                    .doNotRetry(IllegalArgumentException.class))
                .call(() -> { throw new IllegalArgumentException("bad request"); });
          } catch (IllegalArgumentException e) {
            out.put("refused", e.getMessage());
          }
          try {
            f.step("slow").timeout(Duration.ofMillis(200))
                .call(() -> { Thread.sleep(30_000); return 1; });
          } catch (FlowsError e) {
            out.put("slow", e.code());
          }
          int[] calls = {0};
          int third = f.step("third").retry(RetryPolicy.attempts(3)
                  .backoff(Duration.ofMillis(10), 1.0, Duration.ofMillis(10)))
              .call(Integer.class, () -> {
                if (++calls[0] < 3) {
                  throw new IllegalStateException("not yet");
                }
                return calls[0];
              });
          return out.put("third", third);
        }
      }
      """;

  @Test
  void aStepRetriesWithBackoffThenFailsRetriesExhaustedAndADoNotRetryFailureIsNotRetried(
      @TempDir Path dir) throws Exception {
    RunSnapshot done = runToEnd(dir, "flaky.flow.java", FLAKY);
    RunRef root = done.runId();

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    JsonNode out = done.steps().getFirst().output().orElseThrow();
    assertThat(out.path("down").asText()).isEqualTo("retries_exhausted");
    assertThat(out.path("downMessage").asText()).contains("3 attempts", "still down");
    assertThat(out.path("refused").asText()).isEqualTo("bad request");
    assertThat(out.path("slow").asText()).isEqualTo("timeout");
    assertThat(out.path("third").asInt()).isEqualTo(3);

    List<JsonNode> down = attempts(root, 1);
    assertThat(down).hasSize(3);
    long[] nominal = {300, 600};
    for (int i = 0; i < 2; i++) {
      Instant at = Instant.parse(down.get(i).path("at").asText());
      Instant retryAt = Instant.parse(down.get(i).path("retryAt").asText());
      Instant next = Instant.parse(down.get(i + 1).path("at").asText());
      // The journaled backoff is the policy's, within the kernel's 20% jitter, and waited.
      assertThat(Duration.between(at, retryAt).toMillis())
          .isBetween((long) (nominal[i] * 0.8), (long) (nominal[i] * 1.2));
      assertThat(next).isAfterOrEqualTo(retryAt);
    }
    assertThat(down.getLast().has("retryAt")).isFalse();
    assertThat(down.getFirst().at("/policy/retry/maxAttempts").asInt()).isEqualTo(3);
    assertThat(down.getFirst().at("/error/exception").asText())
        .isEqualTo("java.lang.IllegalStateException");
    List<JsonNode> refused = attempts(root, 2);
    assertThat(refused).as("a doNotRetry failure is not retried").hasSize(1);
    assertThat(refused.getFirst().has("retryAt")).isFalse();
    assertThat(attempts(root, 3).getFirst().at("/error/code").asText()).isEqualTo("timeout");
    JsonNode third = memo(root, "/memo/4");
    assertThat(third.path("attempts").asInt()).isEqualTo(3);
    assertThat(third.at("/policy/retry/maxAttempts").asInt()).isEqualTo(3);
    assertThat(attempts(root, 4)).hasSize(2);
  }

  private static List<JsonNode> attempts(RunRef root, int pos) {
    return journal.entries(root).stream()
        .map(r -> r.entry())
        .filter(
            e ->
                e instanceof JournalEntry.EffectConfirmed c
                    && c.surfacePath().startsWith("/memo/" + pos + "/attempt/"))
        .map(e -> ((JournalEntry.EffectConfirmed) e).output().orElseThrow())
        .toList();
  }

  private static JsonNode memo(RunRef root, String surface) {
    return journal.entries(root).stream()
        .map(r -> r.entry())
        .filter(e -> e instanceof JournalEntry.EffectConfirmed c && c.surfacePath().equals(surface))
        .map(e -> ((JournalEntry.EffectConfirmed) e).output().orElseThrow())
        .findFirst()
        .orElseThrow();
  }

  static final String PAY =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Pay implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("pay").version("1").mcp("SERVER").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String a = f.mcp("SERVER").tool("ledger").onUnknownOutcome(UnknownOutcome.DECISION)
              .call(Map.of("n", 1)).text();
          return JsonNodeFactory.instance.objectNode().put("a", a);
        }
      }
      """;

  /**
   * Admits the flow, runs it on a worker that dies once the tool answered, then on a healthy one.
   */
  private static RunSnapshot crashAfterTheCallThenRecover(
      Path dir, String server, boolean idempotencyKeys, String decision, Path ledger)
      throws Exception {
    LoadedFlow flow =
        LedgerFlows.write(
            dir.resolve(server),
            "pay.flow.java",
            PAY.replace("SERVER", server).replace("DECISION", decision),
            server,
            idempotencyKeys,
            ledger);
    try (FlowsEngine admitter = FlowsEngine.withDefaults(journal)) {
      RunRef root =
          admitter.start(flow, JsonNodeFactory.instance.objectNode(), Optional.empty()).runId();
      Process dying = worker(Optional.of(FaultPoint.AFTER_CALL_BEFORE_CONFIRM));
      assertThat(dying.waitFor(120, TimeUnit.SECONDS)).as("the faulty worker died").isTrue();
      assertThat(dying.exitValue()).isEqualTo(FaultPoint.HALT_STATUS);
      Process healthy = worker(Optional.empty());
      try {
        return EngineEndToEndTest.awaitTerminal(journal, root);
      } finally {
        healthy.destroy();
        healthy.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private static Process worker(Optional<FaultPoint> fault) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Jvm.java());
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    fault.ifPresent(f -> cmd.add("-Dflows.fault=" + f.wire()));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    cmd.add(TestWorkerMain.class.getName());
    cmd.add(db.jdbcUrl());
    cmd.add(String.valueOf(LEASE.toMillis()));
    return new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(File.createTempFile("worker", ".log"))
        .start();
  }

  @Test
  void parkOverridesAServerThatHonoursKeysAndTheCallIsNotSentAgain(@TempDir Path dir)
      throws Exception {
    Path ledger = dir.resolve("ledger");
    RunSnapshot done = crashAfterTheCallThenRecover(dir, "idem", true, "PARK", ledger);

    assertThat(done.status()).isEqualTo(RunStatus.PARKED);
    RunRef child = journal.children(done.runId()).getFirst();
    assertThat(journal.run(child).orElseThrow().status()).isEqualTo(RunStatus.PARKED);
    assertThat(Files.readAllLines(Path.of(ledger + ".calls"))).as("sent once").hasSize(1);
  }

  @Test
  void retryWithKeyOverridesAPlainServerAndResendsTheCallWithTheSameKey(@TempDir Path dir)
      throws Exception {
    Path ledger = dir.resolve("ledger");
    RunSnapshot done = crashAfterTheCallThenRecover(dir, "plain", false, "RETRY_WITH_KEY", ledger);

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    List<String> calls = Files.readAllLines(Path.of(ledger + ".calls"));
    assertThat(calls).as("sent again").hasSize(2);
    assertThat(calls.get(1)).as("with the same key").isEqualTo(calls.get(0));
    assertThat(Files.readAllLines(ledger)).containsExactly(calls.get(0));
    RunRef child = journal.children(done.runId()).getFirst();
    // The key the server saw is the one every attempt elected.
    String key = calls.get(0);
    // Every later attempt took the dead one's election over, keeping its key.
    List<JournalEntry.EffectRecorded> elections =
        journal.entries(child).stream()
            .map(r -> r.entry())
            .filter(e -> e instanceof JournalEntry.EffectRecorded)
            .map(e -> (JournalEntry.EffectRecorded) e)
            .toList();
    assertThat(elections).hasSizeGreaterThan(1);
    assertThat(elections).allSatisfy(e -> assertThat(e.idempotencyKey()).isEqualTo(key));
    assertThat(elections.subList(1, elections.size()))
        .allMatch(JournalEntry.EffectRecorded::takenOver);
  }
}
