package dev.flows.worker.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.WorkerLease;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class InlineMcpCallsTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final WorkerId WORKER = new WorkerId("inline-worker");
  private static final JsonNode CONNECTION =
      McpServerConfigJson.write(Jvm.stdioServer("tools", List.of(), Map.of()));
  private static McpSessions sessions;
  private final InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
  private final InlineMcpCalls inline =
      new InlineMcpCalls(
          journal,
          new McpToolExecutor(sessions, journal),
          new WorkerLease(journal, WorkerConfig.defaults(), InstantSource.system()),
          WORKER,
          Duration.ofSeconds(30),
          InstantSource.system());

  @BeforeAll
  static void sessions() {
    sessions = new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment());
  }

  @AfterAll
  static void close() {
    sessions.close();
  }

  private static StartRun request(String id, String tool, JsonNode args, int iterations) {
    ObjectNode in = JSON.objectNode().put("type", "mcp").put("server", "tools").put("tool", tool);
    in.set("input", args);
    in.set("connection", CONNECTION);
    in.put("mayReperform", false);
    StepSpec step =
        new StepSpec(
            "call",
            List.of(),
            args,
            iterations,
            new BackoffPolicy(1, 1, 1.0, 0),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(
                in, RecoveryMode.INSPECT, List.of(McpCallInstruction.surface("tools", tool))));
    return new StartRun(
        Optional.of(new RunRef(id)),
        id,
        new RunSpec(RunSpec.VERSION, "t", List.of(step)),
        Optional.empty(),
        "test");
  }

  private List<String> types(String run) {
    return journal.entries(new RunRef(run)).stream().map(r -> r.entry().type()).toList();
  }

  @Test
  void aFirstCallIsAdmittedClaimedPerformedAndCompletedByTheCallingWorker() throws Exception {
    InlineMcpCalls.Result r =
        inline.call(request("inline-ok", "meta", JSON.objectNode(), 1), "/mcp/tools/meta");

    JsonNode receipt = ((InlineMcpCalls.Result.Succeeded) r).receipt();
    String key = receipt.path("idempotencyKey").asText();
    assertThat(receipt.path("type").asText()).isEqualTo("mcp");
    assertThat(receipt.path("output").path("content").path(0).path("text").asText())
        .contains("dev.flows/idempotency-key=" + key);
    assertThat(types("inline-ok"))
        .containsExactly(
            "run.spawned",
            "step.attempt.started",
            "effect.recorded",
            "effect.confirmed",
            "step.completed",
            "run.completed");
    assertThat(
            journal.entries(new RunRef("inline-ok")).stream()
                .map(e -> e.entry())
                .filter(e -> e instanceof JournalEntry.StepAttemptStarted)
                .map(e -> ((JournalEntry.StepAttemptStarted) e).workerId()))
        .containsExactly(WORKER);
    assertThat(journal.run(new RunRef("inline-ok")).orElseThrow().steps().getFirst().output())
        .contains(receipt);
  }

  @Test
  void aToolErrorIsConfirmedAndFailsTheChildWhichTheCallerThenAwaits() throws Exception {
    InlineMcpCalls.Result r =
        inline.call(request("inline-fail", "fail", JSON.objectNode(), 1), "/mcp/tools/fail");

    assertThat(r).isInstanceOf(InlineMcpCalls.Result.AwaitChild.class);
    assertThat(journal.run(new RunRef("inline-fail")).orElseThrow().status())
        .isEqualTo(RunStatus.FAILED);
    assertThat(types("inline-fail")).contains("effect.confirmed").endsWith("run.completed");
  }

  @Test
  void anAdmissionThatAlreadyHappenedIsRefusedAndNothingIsCalled() {
    journal.admit(request("inline-dup", "meta", JSON.objectNode(), 1), Admit.queued());

    assertThatThrownBy(
            () ->
                inline.call(request("inline-dup", "meta", JSON.objectNode(), 1), "/mcp/tools/meta"))
        .isInstanceOf(FlowsException.class)
        .satisfies(
            e ->
                assertThat(((FlowsException) e).code())
                    .isEqualTo(ErrorCode.RUN_ADMISSION_CONFLICT));
    assertThat(types("inline-dup")).containsExactly("run.spawned");
  }

  @Test
  void anInterruptedCallerCancelsTheCallAndTheAttemptCompletesForARetry() throws Exception {
    CompletableFuture<Thread> caller = new CompletableFuture<>();
    CompletableFuture<InlineMcpCalls.Result> result = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              caller.complete(Thread.currentThread());
              try {
                result.complete(
                    inline.call(
                        request("inline-cut", "sleep", JSON.objectNode().put("ms", 20_000), 2),
                        "/mcp/tools/sleep"));
              } catch (Throwable t) {
                result.completeExceptionally(t);
              }
            });
    RunRef run = new RunRef("inline-cut");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!types("inline-cut").contains("effect.recorded") && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    // Let the call reach the server before pulling the caller away.
    Thread.sleep(300);
    caller.get().interrupt();

    assertThatThrownBy(() -> result.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(InterruptedException.class);
    assertThat(journal.run(run).orElseThrow().steps().getFirst().status())
        .isEqualTo(StepStatus.READY);
    assertThat(types("inline-cut")).endsWith("step.completed");
  }
}
