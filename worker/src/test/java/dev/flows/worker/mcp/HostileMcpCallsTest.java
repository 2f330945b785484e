package dev.flows.worker.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.mcp.testkit.HostileServer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A hostile server's oversized answer through the worker's call path (claim, lease, effect
 * election, call, completion): the step fails {@code payload_too_large} without a retry, none of
 * the answer reaches the journal, its attempt completes (so its lease is let go), and another run's
 * call on the same server connection finishes meanwhile; on the in-memory journal and on Postgres.
 */
class HostileMcpCallsTest {
  /** The worker module's test heap (its pom's surefire.argLine): the answers here are larger. */
  static final long HEAP_BOUND_BYTES = 256L << 20;

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final WorkerId WORKER = new WorkerId("hostile-worker");
  private static final JsonNode CONNECTION =
      McpServerConfigJson.write(
          HostileServer.stdio("hostile").withProtocol(McpProtocol.V2025_11_25));
  private static McpSessions sessions;

  private static InlineMcpCalls inline(Journal journal) {
    return HostileCalls.inline(journal, sessions, WORKER);
  }

  @BeforeAll
  static void sessions() {
    assertThat(Runtime.getRuntime().maxMemory())
        .as("run with -Xmx at most the bound (this module's surefire.argLine)")
        .isLessThanOrEqualTo(HEAP_BOUND_BYTES);
    sessions = new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment());
  }

  @AfterAll
  static void close() {
    sessions.close();
  }

  private static StartRun request(String id, String tool) {
    return HostileCalls.request(id, CONNECTION, "hostile", tool, 3);
  }

  private static CompletableFuture<InlineMcpCalls.Result> call(
      InlineMcpCalls on, String run, String tool) {
    return HostileCalls.call(on, request(run, tool), "hostile", tool);
  }

  @ParameterizedTest
  @EnumSource(HostileJournal.class)
  void aTwoHundredMegabyteAnswerFailsItsStepPayloadTooLargeWhileAnotherRunFinishes(
      HostileJournal kind) throws Exception {
    try (HostileJournal.Opened opened = kind.open("hostile_huge")) {
      Journal journal = opened.journal();
      InlineMcpCalls inline = inline(journal);
      // The echo run connects first so both calls share one server connection.
      assertThat(call(inline, "warm", "echo").get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      CompletableFuture<InlineMcpCalls.Result> huge = call(inline, "huge", "huge");
      CompletableFuture<InlineMcpCalls.Result> echo = call(inline, "echo", "echo");

      assertThat(echo.get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      assertThat(huge.get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.AwaitChild.class);
      RunRef run = new RunRef("huge");
      assertThat(journal.run(run).orElseThrow().status()).isEqualTo(RunStatus.FAILED);
      List<JournalEntry.StepCompleted> completions =
          journal.entries(run).stream()
              .map(e -> e.entry())
              .filter(e -> e instanceof JournalEntry.StepCompleted)
              .map(JournalEntry.StepCompleted.class::cast)
              .toList();
      assertThat(completions).as("not retried").hasSize(1);
      assertThat(completions.getFirst().trajectoryTail().orElseThrow().path("diagnostic").asText())
          .isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE.wire());
      assertThat(opened.largestStoredBytes(run))
          .as("none of the answer is journaled (on Postgres: in no row of any table)")
          .isLessThan(64 * 1024);
      // Completed, so its lease is let go (on Postgres a running step is the one holding a lease):
      // the step is not left running for a reconciler to find.
      assertThat(journal.run(run).orElseThrow().steps().getFirst().status())
          .isEqualTo(dev.flows.kernel.lifecycle.StepStatus.FAILED);
    }
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "IN_MEMORY, invalid",
    "IN_MEMORY, nested",
    "POSTGRES, invalid",
    "POSTGRES, nested"
  })
  void anAnswerThatIsNotJsonOrNestedTooDeepEndsItsAttemptResultUnavailableWhileAnotherRunFinishes(
      HostileJournal kind, String tool) throws Exception {
    try (HostileJournal.Opened opened = kind.open("hostile_bad")) {
      Journal journal = opened.journal();
      InlineMcpCalls inline = inline(journal);
      assertThat(call(inline, "warm-" + tool, "echo").get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      CompletableFuture<InlineMcpCalls.Result> bad = call(inline, "bad-" + tool, tool);
      CompletableFuture<InlineMcpCalls.Result> echo = call(inline, "echo-" + tool, "echo");

      assertThat(echo.get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      assertThat(bad.get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.AwaitChild.class);
      RunRef run = new RunRef("bad-" + tool);
      JournalEntry.StepCompleted first = HostileCalls.firstCompletion(journal, run);
      assertThat(first.trajectoryTail().orElseThrow().path("diagnostic").asText())
          .isEqualTo(ErrorCode.MCP_RESULT_UNAVAILABLE.wire());
      assertThat(opened.largestStoredBytes(run)).isLessThan(64 * 1024);
      // Its attempt ended, so its lease is let go (retried by a claimer, or failed).
      assertThat(journal.run(run).orElseThrow().steps().getFirst().status())
          .isNotEqualTo(dev.flows.kernel.lifecycle.StepStatus.RUNNING);
    }
  }
}
