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
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.mcp.testkit.HostileServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hostile servers through the worker's call path (claim, lease, effect election, call, completion),
 * each while another run's call to another server of the same worker finishes: an answer dripped a
 * byte a second, and an SSE stream that never answers, end at the client's call timeout with {@code
 * mcp_result_unavailable}; a {@code tools/list} of 100,000 tools ends the attempt {@code
 * payload_too_large}; garbage on stdout before the handshake is skipped. An attempt that fails
 * completes, so its lease is let go. Each on the in-memory journal and on Postgres (on the drip's
 * own stdio connection an answer would interleave with the dripped bytes: that server writes them
 * from another thread).
 */
class HostileMcpDeadlinesTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final WorkerId WORKER = new WorkerId("hostile-deadline-worker");
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

  private static JsonNode connection(String server) {
    if (server.equals("sse")) {
      return McpServerConfigJson.write(
          new dev.flows.kernel.mcp.McpServerConfig.Http(
              server,
              http.url(),
              java.util.Map.of(),
              new dev.flows.kernel.mcp.McpAuth.None(),
              McpProtocol.V2025_11_25,
              java.util.OptionalInt.empty()));
    }
    String[] flags =
        switch (server) {
          case "garbage" -> new String[] {"--garbage"};
          case "many" -> new String[] {"--tools=100000"};
          default -> new String[0];
        };
    return McpServerConfigJson.write(
        HostileServer.stdio(server, flags).withProtocol(McpProtocol.V2025_11_25));
  }

  private static McpSessions sessions;
  private static HostileServer.Http http;

  private static InlineMcpCalls inline(Journal journal) {
    return HostileCalls.inline(journal, sessions, WORKER);
  }

  @BeforeAll
  static void sessions() throws java.io.IOException {
    http = HostileServer.http(0);
    sessions =
        new McpSessions(
            McpClientConfig.DEFAULTS.withCallTimeout(CALL_TIMEOUT),
            McpCredentials.fromEnvironment());
  }

  @AfterAll
  static void close() {
    sessions.close();
    http.close();
  }

  private static StartRun request(String id, String server, String tool) {
    return HostileCalls.request(id, connection(server), server, tool, 1);
  }

  private static CompletableFuture<InlineMcpCalls.Result> call(
      InlineMcpCalls on, String run, String server, String tool) {
    return HostileCalls.call(on, request(run, server, tool), server, tool);
  }

  @ParameterizedTest
  @EnumSource(HostileJournal.class)
  void aOneBytePerSecondDripEndsAtTheCallTimeoutWhileAnotherRunFinishes(HostileJournal kind)
      throws Exception {
    try (HostileJournal.Opened opened = kind.open("hostile_drip")) {
      Journal journal = opened.journal();
      InlineMcpCalls inline = inline(journal);
      // A server of its own per journal: the other case's drip may still be writing to its own.
      String dripping =
          "dripping" + kind.name().toLowerCase(java.util.Locale.ROOT).replace("_", "");
      // Both servers are connected first, so the timed part is the calls alone.
      assertThat(call(inline, "warm", dripping, "echo").get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      assertThat(call(inline, "warm-calm", "calm", "echo").get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      long start = System.nanoTime();
      CompletableFuture<InlineMcpCalls.Result> drip = call(inline, "drip", dripping, "drip");
      CompletableFuture<InlineMcpCalls.Result> echo = call(inline, "echo", "calm", "echo");

      assertThat(echo.get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      drip.get(60, TimeUnit.SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("ended near its call timeout, not when the drip would finish")
          .isLessThan(CALL_TIMEOUT.plusSeconds(18));
      RunRef run = new RunRef("drip");
      JournalEntry.StepCompleted first = HostileCalls.firstCompletion(journal, run);
      HostileCalls.assertSentAndUnanswered(first);
      // Its attempt ended, so its lease is let go: the step is not left running.
      assertThat(journal.run(run).orElseThrow().steps().getFirst().status())
          .isNotEqualTo(StepStatus.RUNNING);
    }
  }

  @ParameterizedTest
  @EnumSource(HostileJournal.class)
  void garbageOnStdoutBeforeTheHandshakeIsSkippedAndTheCallSucceedsWhileAnotherRunFinishes(
      HostileJournal kind) throws Exception {
    try (HostileJournal.Opened opened = kind.open("hostile_garbage")) {
      Journal journal = opened.journal();
      InlineMcpCalls inline = inline(journal);
      assertThat(call(inline, "warm-calm-g", "calm", "echo").get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      CompletableFuture<InlineMcpCalls.Result> garbage = call(inline, "garbage", "garbage", "echo");
      CompletableFuture<InlineMcpCalls.Result> echo = call(inline, "echo-g", "calm", "echo");

      assertThat(echo.get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      assertThat(garbage.get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      assertThat(journal.run(new RunRef("garbage")).orElseThrow().steps().getFirst().status())
          .isEqualTo(StepStatus.SUCCEEDED);
    }
  }

  @ParameterizedTest
  @EnumSource(HostileJournal.class)
  void aHundredThousandToolsInToolsListEndTheAttemptPayloadTooLargeWhileAnotherRunFinishes(
      HostileJournal kind) throws Exception {
    try (HostileJournal.Opened opened = kind.open("hostile_many")) {
      Journal journal = opened.journal();
      InlineMcpCalls inline = inline(journal);
      assertThat(call(inline, "warm-calm-m", "calm", "echo").get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      long start = System.nanoTime();
      CompletableFuture<InlineMcpCalls.Result> many = call(inline, "many", "many", "echo");
      CompletableFuture<InlineMcpCalls.Result> echo = call(inline, "echo-m", "calm", "echo");

      assertThat(echo.get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      many.get(60, TimeUnit.SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
      RunRef run = new RunRef("many");
      JournalEntry.StepCompleted first = HostileCalls.firstCompletion(journal, run);
      assertThat(first.trajectoryTail().orElseThrow().path("diagnostic").asText())
          .isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE.wire());
      assertThat(opened.largestStoredBytes(run)).isLessThan(64 * 1024);
      assertThat(journal.run(run).orElseThrow().steps().getFirst().status())
          .isNotEqualTo(StepStatus.RUNNING);
    }
  }

  @ParameterizedTest
  @EnumSource(HostileJournal.class)
  void anSseStreamThatNeverEndsEndsItsAttemptAtTheCallTimeoutWhileAnotherRunOnTheSameServerFinishes(
      HostileJournal kind) throws Exception {
    try (HostileJournal.Opened opened = kind.open("hostile_sse")) {
      Journal journal = opened.journal();
      InlineMcpCalls inline = inline(journal);
      assertThat(call(inline, "warm-sse", "sse", "sse-echo").get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      long start = System.nanoTime();
      CompletableFuture<InlineMcpCalls.Result> endless =
          call(inline, "endless", "sse", "sse-endless");
      CompletableFuture<InlineMcpCalls.Result> echo = call(inline, "echo-sse", "sse", "sse-echo");

      assertThat(echo.get(60, TimeUnit.SECONDS))
          .isInstanceOf(InlineMcpCalls.Result.Succeeded.class);
      endless.get(60, TimeUnit.SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("ended near its call timeout")
          .isLessThan(CALL_TIMEOUT.plusSeconds(18));
      RunRef run = new RunRef("endless");
      JournalEntry.StepCompleted first = HostileCalls.firstCompletion(journal, run);
      HostileCalls.assertSentAndUnanswered(first);
      assertThat(journal.run(run).orElseThrow().steps().getFirst().status())
          .isNotEqualTo(StepStatus.RUNNING);
    }
  }
}
