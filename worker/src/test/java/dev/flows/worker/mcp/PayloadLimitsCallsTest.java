package dev.flows.worker.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.mcp.testkit.HostileServer;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.WorkerLease;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The worker's own payload limits through its call path: a small answer whose receipt (the call's
 * input with the answer) is past the receipt limit, and a receipt within it that is past the step
 * output limit, each fail the step {@code payload_too_large} once, not retried.
 */
class PayloadLimitsCallsTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final WorkerId WORKER = new WorkerId("limits-worker");
  private static final long SMALL = PayloadLimits.MIN_BYTES;
  private static McpSessions sessions;
  private final InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());

  @BeforeAll
  static void sessions() {
    sessions = new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment());
  }

  @AfterAll
  static void close() {
    sessions.close();
  }

  private InlineMcpCalls inline(ReceiptBound receipts, PayloadLimits limits) {
    WorkerConfig config = WorkerConfig.defaults().toBuilder().payloadLimits(limits).build();
    return new InlineMcpCalls(
        journal,
        new McpToolExecutor(sessions, journal).receipts(receipts),
        new WorkerLease(journal, config, InstantSource.system()),
        WORKER,
        Duration.ofSeconds(60),
        InstantSource.system());
  }

  private static StartRun request(String id, JsonNode connection, JsonNode input) {
    ObjectNode in =
        JSON.objectNode().put("type", "mcp").put("server", "hostile").put("tool", "echo");
    in.set("input", input);
    in.set("connection", connection);
    in.put("mayReperform", false);
    StepSpec step =
        new StepSpec(
            "call",
            List.of(),
            JSON.objectNode(),
            3,
            new BackoffPolicy(1, 1, 1.0, 0),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(
                in, RecoveryMode.INSPECT, List.of(McpCallInstruction.surface("hostile", "echo"))));
    return new StartRun(
        Optional.of(new RunRef(id)),
        id,
        new RunSpec(RunSpec.VERSION, "t", List.of(step)),
        Optional.empty(),
        "test");
  }

  private static JsonNode connection(OptionalInt ownLimit) {
    return McpServerConfigJson.write(
        HostileServer.stdio("hostile")
            .withProtocol(McpProtocol.V2025_11_25)
            .withMaxResultBytes(ownLimit));
  }

  /** An input of about {@code bytes} bytes: the receipt carries it with the answer. */
  private static JsonNode inputOf(int bytes) {
    return JSON.objectNode().put("note", "n".repeat(bytes));
  }

  private List<JournalEntry> entries(String run) {
    return journal.entries(new RunRef(run)).stream().map(JournalRecord::entry).toList();
  }

  private JsonNode onlyFailure(String run) {
    assertThat(journal.run(new RunRef(run)).orElseThrow().status()).isEqualTo(RunStatus.FAILED);
    List<JournalEntry.StepCompleted> ends =
        entries(run).stream()
            .filter(JournalEntry.StepCompleted.class::isInstance)
            .map(JournalEntry.StepCompleted.class::cast)
            .toList();
    assertThat(ends).as("not retried").hasSize(1);
    return ends.getFirst().trajectoryTail().orElseThrow();
  }

  @Test
  void aSmallAnswerWhoseReceiptIsPastTheReceiptLimitFailsTheCallWithNothingOfItConfirmed()
      throws Exception {
    InlineMcpCalls calls = inline(new ReceiptBound(SMALL), PayloadLimits.DEFAULTS);

    InlineMcpCalls.Result r =
        calls.call(
            request("big-receipt", connection(OptionalInt.empty()), inputOf(5000)),
            "/mcp/hostile/echo");

    assertThat(r).isInstanceOf(InlineMcpCalls.Result.AwaitChild.class);
    JsonNode tail = onlyFailure("big-receipt");
    assertThat(tail.path("diagnostic").asText()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE.wire());
    assertThat(tail.path("message").asText()).contains("maxReceiptBytes").contains("4096 bytes");
    assertThat(entries("big-receipt"))
        .as("the tool ran, but no receipt is journaled")
        .noneMatch(JournalEntry.EffectConfirmed.class::isInstance);
  }

  @Test
  void aServersOwnLargerResultLimitRaisesTheBoundOfItsReceipts() throws Exception {
    InlineMcpCalls calls = inline(new ReceiptBound(SMALL), PayloadLimits.DEFAULTS);

    InlineMcpCalls.Result r =
        calls.call(
            request("own-limit", connection(OptionalInt.of(65536)), inputOf(5000)),
            "/mcp/hostile/echo");

    assertThat(r).isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
  }

  @Test
  void aReceiptWithinItsLimitButPastTheStepOutputLimitFailsTheStepPayloadTooLarge()
      throws Exception {
    InlineMcpCalls calls =
        inline(ReceiptBound.DEFAULT, PayloadLimits.DEFAULTS.withMaxStepOutputBytes(SMALL));

    InlineMcpCalls.Result r =
        calls.call(
            request("big-output", connection(OptionalInt.empty()), inputOf(5000)),
            "/mcp/hostile/echo");

    assertThat(r).isInstanceOf(InlineMcpCalls.Result.AwaitChild.class);
    JsonNode tail = onlyFailure("big-output");
    assertThat(tail.path("diagnostic").asText()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE.wire());
    assertThat(tail.path("message").asText()).contains("maxStepOutputBytes");
    assertThat(tail.path("fix").asText()).contains("--max-output-bytes");
  }
}
