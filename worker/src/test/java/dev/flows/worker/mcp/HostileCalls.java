package dev.flows.worker.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.mcp.client.McpSessions;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.WorkerLease;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * What the worker-level hostile-peer tests share: a run of one MCP call (never re-sent), that call
 * made through the worker's inline path on a thread of its own, and the first completion its
 * attempt journaled (where the call's diagnostic is).
 */
final class HostileCalls {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private HostileCalls() {}

  static StartRun request(
      String id, JsonNode connection, String server, String tool, int maxAttempts) {
    ObjectNode in = JSON.objectNode().put("type", "mcp").put("server", server).put("tool", tool);
    in.set("input", JSON.objectNode());
    in.set("connection", connection);
    in.put("mayReperform", false);
    StepSpec step =
        new StepSpec(
            "call",
            List.of(),
            JSON.objectNode(),
            maxAttempts,
            new BackoffPolicy(1, 1, 1.0, 0),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(
                in, RecoveryMode.INSPECT, List.of(McpCallInstruction.surface(server, tool))));
    return new StartRun(
        Optional.of(new RunRef(id)),
        id,
        new RunSpec(RunSpec.VERSION, "t", List.of(step)),
        Optional.empty(),
        "test");
  }

  /** The worker's inline call path on {@code journal}, calling through {@code sessions}. */
  static InlineMcpCalls inline(Journal journal, McpSessions sessions, WorkerId worker) {
    return new InlineMcpCalls(
        journal,
        new McpToolExecutor(sessions, journal),
        new WorkerLease(journal, WorkerConfig.defaults(), InstantSource.system()),
        worker,
        Duration.ofSeconds(60),
        InstantSource.system());
  }

  static CompletableFuture<InlineMcpCalls.Result> call(
      InlineMcpCalls inline, StartRun request, String server, String tool) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return inline.call(request, "/mcp/" + server + "/" + tool);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /**
   * A call that was sent and never answered within its one attempt: its outcome is unknown, so the
   * step parks {@code effect_outcome_unknown} (not failed), the attempt's own diagnostic, {@code
   * mcp_result_unavailable} at the call timeout, kept as {@code lastDiagnostic}.
   */
  static void assertSentAndUnanswered(JournalEntry.StepCompleted end) {
    JsonNode tail = end.trajectoryTail().orElseThrow();
    assertThat(tail.path("diagnostic").asText()).isEqualTo(ErrorCode.EFFECT_OUTCOME_UNKNOWN.wire());
    assertThat(tail.path("lastDiagnostic").asText())
        .isEqualTo(ErrorCode.MCP_RESULT_UNAVAILABLE.wire());
  }

  static JournalEntry.StepCompleted firstCompletion(Journal journal, RunRef run) {
    return journal.entries(run).stream()
        .map(e -> e.entry())
        .filter(e -> e instanceof JournalEntry.StepCompleted)
        .map(JournalEntry.StepCompleted.class::cast)
        .findFirst()
        .orElseThrow();
  }
}
