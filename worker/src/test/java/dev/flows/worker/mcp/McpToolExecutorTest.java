package dev.flows.worker.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.CancellationToken;
import dev.flows.worker.EffectGate;
import dev.flows.worker.StepExecution;
import dev.flows.worker.telemetry.RunTraces;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class McpToolExecutorTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static McpSessions sessions;
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final McpToolExecutor executor = new McpToolExecutor(sessions, journal);

  @BeforeAll
  static void sessions() {
    sessions = new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment());
  }

  @AfterAll
  static void close() {
    sessions.close();
  }

  private static final JsonNode CONNECTION =
      McpServerConfigJson.write(Jvm.stdioServer("tools", List.of(), Map.of()));

  private static final JsonNode MODERN_CONNECTION =
      McpServerConfigJson.write(Jvm.modernStdioServer("tools"));

  private ClaimedAttempt callStep(
      String tool, JsonNode args, boolean mayReperform, int iterations) {
    return callStep(tool, args, mayReperform, iterations, CONNECTION);
  }

  private ClaimedAttempt callStep(
      String tool, JsonNode args, boolean mayReperform, int iterations, JsonNode connection) {
    journal.admit(
        StartRun.of(
            "k" + System.nanoTime(),
            new RunSpec(
                RunSpec.VERSION,
                "t",
                List.of(callSpec(tool, args, mayReperform, iterations, connection)))),
        Admit.queued());
    return claim();
  }

  private static StepSpec callSpec(
      String tool, JsonNode args, boolean mayReperform, int iterations, JsonNode connection) {
    String server = connection.path("name").asText("tools");
    ObjectNode in = JSON.objectNode().put("type", "mcp").put("server", server).put("tool", tool);
    in.set("input", args);
    in.set("connection", connection);
    in.put("mayReperform", mayReperform);
    return new StepSpec(
        "call",
        List.of(),
        args,
        iterations,
        new BackoffPolicy(1, 1, 1.0, 0),
        OptionalLong.of(2_000),
        OptionalLong.empty(),
        new StepBody.Agent(in, RecoveryMode.INSPECT, List.of("/mcp/" + server + "/" + tool)));
  }

  /** The text a {@code meta}/{@code echo} call answered. */
  private String answeredText(ClaimedAttempt a) throws Exception {
    return ((StepOutcome.Succeeded) executor.execute(exec(a)))
        .output()
        .path("output")
        .path("content")
        .path(0)
        .path("text")
        .asText();
  }

  private static JsonNode readJson(String line) {
    try {
      return dev.flows.kernel.json.Jackson.mapper().readTree(line);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private ClaimedAttempt claim() {
    return journal
        .claim(
            new ClaimRequest(new WorkerId("w"), Set.of(StepKind.AGENT), 1, Duration.ofSeconds(30)))
        .getFirst();
  }

  private StepExecution exec(ClaimedAttempt a) {
    EffectGate gate =
        new EffectGate() {
          @Override
          public dev.flows.kernel.journal.EffectElection record(String path) {
            return journal.recordEffect(a.lease(), path);
          }

          @Override
          public void confirm(String path, Optional<JsonNode> output) {
            journal.confirmEffect(a.lease(), path, output);
          }
        };
    return new StepExecution(a, new CancellationToken(), gate);
  }

  @Test
  void aCallIsRecordedCalledWithTheKeyInMetaConfirmedAndAnsweredWithAReceipt() throws Exception {
    ClaimedAttempt a = callStep("meta", JSON.objectNode(), false, 1);
    StepOutcome out = executor.execute(exec(a));
    JsonNode receipt = ((StepOutcome.Succeeded) out).output();
    assertThat(receipt.path("type").asText()).isEqualTo("mcp");
    assertThat(receipt.path("server").asText()).isEqualTo("tools");
    assertThat(receipt.path("tool").asText()).isEqualTo("meta");
    assertThat(receipt.path("idempotencyKey").asText()).isEqualTo(a.idempotencyKey());
    assertThat(receipt.path("output").path("content").path(0).path("text").asText())
        .contains("dev.flows/idempotency-key=" + a.idempotencyKey());
    RunRef run = a.lease().runId();
    assertThat(journal.entries(run))
        .extracting(r -> r.entry().type())
        .containsSubsequence("effect.recorded", "effect.confirmed");
    journal.complete(a.lease(), out);
  }

  @Test
  void theSameCallRunsUnchangedOnA2025AndA2026ServerAndEachReceiptSaysWhichRevisionAnswered()
      throws Exception {
    ClaimedAttempt old = callStep("echo", JSON.objectNode().put("text", "hi"), false, 1);
    JsonNode oldReceipt = ((StepOutcome.Succeeded) executor.execute(exec(old))).output();
    journal.complete(old.lease(), new StepOutcome.Succeeded(oldReceipt));
    ClaimedAttempt modern =
        callStep("echo", JSON.objectNode().put("text", "hi"), false, 1, MODERN_CONNECTION);
    JsonNode modernReceipt = ((StepOutcome.Succeeded) executor.execute(exec(modern))).output();

    assertThat(oldReceipt.path("protocolVersion").asText()).isEqualTo("2025-11-25");
    assertThat(modernReceipt.path("protocolVersion").asText()).isEqualTo("2026-07-28");
    assertThat(modernReceipt.path("output")).isEqualTo(oldReceipt.path("output"));
  }

  @Test
  void aCallTakenOverAfterACrashCarriesTheSameTraceAsItsRunWithItsOwnSpan() throws Exception {
    ClaimedAttempt first = callStep("meta", JSON.objectNode(), true, 2);
    journal.recordEffect(first.lease(), "/mcp/tools/meta"); // the first worker dies here
    clock.advance(Duration.ofSeconds(3));
    journal.expireLeases();
    clock.advance(Duration.ofSeconds(1));
    ClaimedAttempt second = claim();

    String seen = answeredText(second);

    RunRef run = first.lease().runId();
    assertThat(seen)
        .contains(
            "traceparent=00-"
                + RunTraces.traceId(run)
                + "-"
                + RunTraces.attemptSpanId(second.lease())
                + "-01");
    assertThat(TraceContext.traceparent(run, first.lease()))
        .startsWith("00-" + RunTraces.traceId(run) + "-")
        .isNotEqualTo(TraceContext.traceparent(run, second.lease()));
  }

  @Test
  void aCallInAChildRunCarriesItsRootRunsTraceAndItsAttemptsSpanAsTheSpansDo() throws Exception {
    RunRef root =
        journal
            .admit(
                StartRun.of(
                    "root" + System.nanoTime(),
                    new RunSpec(
                        RunSpec.VERSION,
                        "parent",
                        List.of(
                            new StepSpec(
                                "body",
                                List.of(),
                                JSON.nullNode(),
                                1,
                                new BackoffPolicy(1, 1, 1.0, 0),
                                OptionalLong.empty(),
                                OptionalLong.empty(),
                                new StepBody.Deterministic(
                                    List.of("true"), false, Optional.empty()))))),
                Admit.queued())
            .runId();
    StepSpec step = callSpec("meta", JSON.objectNode(), false, 1, CONNECTION);
    RunRef child = new RunRef(root.value() + "-child");
    journal.admit(
        new StartRun(
            Optional.of(child),
            child.value(),
            new RunSpec(RunSpec.VERSION, "parent:mcp:tools/meta", List.of(step)),
            Optional.of(root),
            "flow:parent"),
        Admit.queued());
    ClaimedAttempt call = claim();
    assertThat(call.lease().runId()).isEqualTo(child);

    String seen = answeredText(call);

    assertThat(seen)
        .contains(
            "traceparent=00-"
                + RunTraces.traceId(root)
                + "-"
                + RunTraces.attemptSpanId(call.lease())
                + "-01");
  }

  @Test
  void aConfirmedEffectIsAnsweredFromTheJournalWithoutCallingAgain() throws Exception {
    ClaimedAttempt first = callStep("pid", JSON.objectNode(), false, 2);
    StepOutcome out = executor.execute(exec(first));
    journal.complete(
        first.lease(),
        new StepOutcome.Failed(
            dev.flows.kernel.journal.CompletionReason.CRASHED, JSON.objectNode(), true));
    clock.advance(Duration.ofSeconds(1));
    ClaimedAttempt second = claim();
    StepOutcome again = executor.execute(exec(second));
    assertThat(((StepOutcome.Succeeded) again).output())
        .isEqualTo(((StepOutcome.Succeeded) out).output());
    assertThat(
            journal.entries(first.lease().runId()).stream()
                .filter(r -> r.entry() instanceof JournalEntry.EffectRecorded))
        .hasSize(1);
  }

  @Test
  void aCallAnsweredInputRequiredParksWithWhatWasAskedAndItsAnswerIsSentWithTheStateAndSameKey()
      throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("ask-form");
    java.nio.file.Path events = dir.resolve("events.jsonl");
    JsonNode asking =
        McpServerConfigJson.write(
            Jvm.taskStdioServer(
                "asking", "--state=" + dir.resolve("tasks.json"), "--events=" + events));
    ClaimedAttempt first = callStep("ask_form", JSON.objectNode(), false, 3, asking);

    StepOutcome out = executor.execute(exec(first));

    assertThat(out).isInstanceOf(StepOutcome.Parked.class);
    StepOutcome.Parked parked = (StepOutcome.Parked) out;
    assertThat(parked.code()).isEqualTo(ErrorCode.INPUT_REQUIRED);
    JsonNode tail = parked.trajectoryTail();
    assertThat(tail.path("diagnostic").asText()).isEqualTo("input_required");
    assertThat(tail.at("/inputRequests/name/params/requestedSchema/properties/name/type").asText())
        .isEqualTo("string");
    String state = tail.path("requestState").asText();
    assertThat(state).isNotBlank();
    journal.complete(first.lease(), out);
    RunRef run = first.lease().runId();
    journal.answerInput(
        run, "call", new InputAnswer.Accept(JSON.objectNode().put("name", "Ada")), "ops");

    ClaimedAttempt second = claim();
    assertThat(answeredText(second)).isEqualTo("hello Ada");

    List<JsonNode> calls =
        java.nio.file.Files.readAllLines(events).stream()
            .map(McpToolExecutorTest::readJson)
            .filter(e -> e.path("event").asText().equals("tools/call"))
            .toList();
    assertThat(calls).hasSize(2);
    assertThat(calls.get(0).path("key").asText()).isEqualTo(first.idempotencyKey());
    assertThat(calls.get(1).path("key").asText()).isEqualTo(first.idempotencyKey());
    assertThat(calls.get(1).path("requestState").asText()).isEqualTo(state);
  }

  @Test
  void anUnconfirmedEffectOfANonIdempotentToolParksTheStepInsteadOfCallingAgain() throws Exception {
    ClaimedAttempt first = callStep("noop", JSON.objectNode(), false, 2);
    journal.recordEffect(first.lease(), "/mcp/tools/noop"); // the attempt dies after this
    clock.advance(Duration.ofSeconds(3));
    journal.expireLeases();
    clock.advance(Duration.ofSeconds(1));
    ClaimedAttempt second = claim();
    StepOutcome out = executor.execute(exec(second));
    assertThat(out).isInstanceOf(StepOutcome.Parked.class);
    assertThat(((StepOutcome.Parked) out).code()).isEqualTo(ErrorCode.EFFECT_OUTCOME_UNKNOWN);
  }

  @Test
  void anUnconfirmedEffectOfAnIdempotentToolIsCalledAgainWithTheSameKey() throws Exception {
    ClaimedAttempt first = callStep("meta", JSON.objectNode(), true, 2);
    journal.recordEffect(first.lease(), "/mcp/tools/meta");
    clock.advance(Duration.ofSeconds(3));
    journal.expireLeases();
    clock.advance(Duration.ofSeconds(1));
    ClaimedAttempt second = claim();
    StepOutcome out = executor.execute(exec(second));
    JsonNode receipt = ((StepOutcome.Succeeded) out).output();
    assertThat(receipt.path("idempotencyKey").asText()).isEqualTo(first.idempotencyKey());
    assertThat(receipt.path("output").toString()).contains(first.idempotencyKey());
  }

  /** A call whose first attempt died after electing its effect, with {@code policy} fields. */
  private ClaimedAttempt takenOver(String tool, boolean mayReperform, ObjectNode policy) {
    String server = "tools";
    ObjectNode in = JSON.objectNode().put("type", "mcp").put("server", server).put("tool", tool);
    in.set("input", JSON.objectNode());
    in.set("connection", CONNECTION);
    in.put("mayReperform", mayReperform);
    in.setAll(policy);
    StepSpec step =
        new StepSpec(
            "call",
            List.of(),
            JSON.objectNode(),
            2,
            new BackoffPolicy(1, 1, 1.0, 0),
            OptionalLong.of(2_000),
            OptionalLong.empty(),
            new StepBody.Agent(in, RecoveryMode.INSPECT, List.of("/mcp/" + server + "/" + tool)));
    journal.admit(
        StartRun.of("k" + System.nanoTime(), new RunSpec(RunSpec.VERSION, "t", List.of(step))),
        Admit.queued());
    ClaimedAttempt first = claim();
    journal.recordEffect(first.lease(), "/mcp/tools/" + tool); // the attempt dies after this
    clock.advance(Duration.ofSeconds(3));
    journal.expireLeases();
    clock.advance(Duration.ofSeconds(1));
    return claim();
  }

  @Test
  void onUnknownOutcomeParkParksACallTheAnnotationsWouldSendAgain() throws Exception {
    ClaimedAttempt second =
        takenOver("meta", true, JSON.objectNode().put("onUnknownOutcome", "park"));
    StepOutcome out = executor.execute(exec(second));
    assertThat(((StepOutcome.Parked) out).code()).isEqualTo(ErrorCode.EFFECT_OUTCOME_UNKNOWN);
    assertThat(((StepOutcome.Parked) out).trajectoryTail().path("message").asText())
        .contains("onUnknownOutcome park");
  }

  @Test
  void onUnknownOutcomeRetryWithKeySendsANonIdempotentCallAgainWithTheSameKey() throws Exception {
    ClaimedAttempt second =
        takenOver("meta", false, JSON.objectNode().put("onUnknownOutcome", "retry_with_key"));
    JsonNode receipt = ((StepOutcome.Succeeded) executor.execute(exec(second))).output();
    assertThat(receipt.path("idempotencyKey").asText()).isEqualTo(second.idempotencyKey());
    assertThat(receipt.path("output").toString()).contains(second.idempotencyKey());
  }

  @Test
  void onUnknownOutcomeFailFailsTheCallForGoodWithoutSendingIt() throws Exception {
    ClaimedAttempt second =
        takenOver("meta", true, JSON.objectNode().put("onUnknownOutcome", "fail"));
    StepOutcome.Failed f = (StepOutcome.Failed) executor.execute(exec(second));
    assertThat(f.retryable()).isFalse();
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo("effect_outcome_unknown");
  }

  @Test
  void aFailureTheRetryPolicyNamesIsNotRetried() throws Exception {
    ObjectNode in = JSON.objectNode().put("type", "mcp").put("server", "nope").put("tool", "x");
    in.set("input", JSON.objectNode());
    in.set(
        "connection",
        McpServerConfigJson.write(
            new dev.flows.kernel.mcp.McpServerConfig.Stdio(
                "nope", "/nonexistent/server", List.of(), List.of(), Map.of(), Optional.empty())));
    in.putArray("doNotRetry").add("spawn_failed");
    StepSpec step =
        new StepSpec(
            "call",
            List.of(),
            JSON.objectNode(),
            3,
            BackoffPolicy.defaults(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(in, RecoveryMode.INSPECT, List.of("/mcp/nope/x")));
    journal.admit(
        StartRun.of("named", new RunSpec(RunSpec.VERSION, "t", List.of(step))), Admit.queued());
    StepOutcome.Failed f = (StepOutcome.Failed) executor.execute(exec(claim()));
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo("spawn_failed");
    assertThat(f.retryable()).isFalse();
  }

  @Test
  void aToolErrorFailsWithoutRetryAndIsConfirmedSoItIsNeverSentAgain() throws Exception {
    ClaimedAttempt a = callStep("fail", JSON.objectNode(), false, 3);
    StepOutcome out = executor.execute(exec(a));
    StepOutcome.Failed f = (StepOutcome.Failed) out;
    assertThat(f.retryable()).isFalse();
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo("mcp_tool_error");
    assertThat(f.trajectoryTail().path("idempotencyKey").asText()).isEqualTo(a.idempotencyKey());
    assertThat(f.trajectoryTail().fieldNames())
        .toIterable()
        .contains("type", "server", "tool", "input", "idempotencyKey", "diagnostic");
  }

  @Test
  void anUnreachableServerFailsRetryablyWithSpawnFailed() throws Exception {
    ObjectNode in = JSON.objectNode().put("type", "mcp").put("server", "nope").put("tool", "x");
    in.set("input", JSON.objectNode());
    in.set(
        "connection",
        McpServerConfigJson.write(
            new dev.flows.kernel.mcp.McpServerConfig.Stdio(
                "nope", "/nonexistent/server", List.of(), List.of(), Map.of(), Optional.empty())));
    StepSpec step =
        new StepSpec(
            "call",
            List.of(),
            JSON.objectNode(),
            1,
            BackoffPolicy.defaults(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(in, RecoveryMode.INSPECT, List.of("/mcp/nope/x")));
    journal.admit(
        StartRun.of("bad", new RunSpec(RunSpec.VERSION, "t", List.of(step))), Admit.queued());
    StepOutcome.Failed f = (StepOutcome.Failed) executor.execute(exec(claim()));
    assertThat(f.retryable()).isTrue();
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo("spawn_failed");
  }

  @Test
  void aCallWhoseInstructionLacksItsConnectionFailsForGoodWithoutElectingAnEffect()
      throws Exception {
    ObjectNode in = JSON.objectNode().put("type", "mcp").put("server", "tools").put("tool", "echo");
    in.set("input", JSON.objectNode());
    StepSpec step =
        new StepSpec(
            "call",
            List.of(),
            JSON.objectNode(),
            1,
            BackoffPolicy.defaults(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(in, RecoveryMode.INSPECT, List.of("/mcp/tools/echo")));
    journal.admit(
        StartRun.of("malformed", new RunSpec(RunSpec.VERSION, "t", List.of(step))), Admit.queued());
    ClaimedAttempt a = claim();

    StepOutcome.Failed f = (StepOutcome.Failed) executor.execute(exec(a));

    assertThat(f.retryable()).isFalse();
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo("invalid_input");
    assertThat(f.trajectoryTail().path("message").asText()).contains("connection");
    assertThat(journal.entries(a.lease().runId()))
        .extracting(r -> r.entry().type())
        .doesNotContain("effect.recorded");
  }
}
