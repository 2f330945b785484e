package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.AgentExecutor;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.ForwardingJournal;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.exec.DeterministicExecutor;
import dev.flows.worker.mcp.McpToolExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code f.mcp(s).tool(t).onInput(handler)} against the real task test server (2026-07-28 over
 * stdio), whose {@code ask_form} answers {@code input_required} with a form asking for a name: the
 * body answers it itself, journaled like a memo, whether the call was made inline or claimed.
 */
class OnInputTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.InputPrompt;
      import dev.flows.sdk.*;
      import java.nio.file.Files;
      import java.nio.file.Path;
      import java.nio.file.StandardOpenOption;
      import java.util.Map;

      public class Asker implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("asker").mcp("forms").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String mode = input.path("mode").asText();
          Path log = Path.of(input.path("log").asText());
          String said = f.mcp("forms").tool("ask_form").onInput(request -> {
            Files.writeString(log, ((InputPrompt.Form) request).message() + "\\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return switch (mode) {
              case "decline" -> InputReply.decline();
              case "throw" -> throw new IllegalStateException("no name is known here");
              case "invalid" -> InputReply.accept(Map.of("name", 5));
              default -> InputReply.accept(Map.of("name", "Ada"));
            };
          }).call(Map.of()).text();
          return JsonNodeFactory.instance.objectNode().put("said", said);
        }
      }
      """;

  static final String LIVE_FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import com.fasterxml.jackson.databind.node.ObjectNode;
      import dev.flows.sdk.*;
      import java.nio.file.Files;
      import java.nio.file.Path;
      import java.nio.file.StandardOpenOption;
      import java.util.Map;

      public class Live implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("live").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String mode = input.path("mode").asText();
          Path log = Path.of(input.path("log").asText());
          Ctx.McpTool ask = f.mcp("tools").tool("ask_live");
          if (!mode.equals("none")) {
            ask = ask.onInput(request -> {
              Files.writeString(log, "asked\\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
              if (mode.equals("throw")) {
                throw new IllegalStateException("no name is known here");
              }
              return InputReply.accept(Map.of("name", "Ada"));
            });
          }
          McpResult r = ask.call(Map.of());
          ObjectNode out = JsonNodeFactory.instance.objectNode().put("said", r.text());
          out.set("receipt", r.receipt());
          return out;
        }
      }
      """;

  /** A flow calling the 2025 stdio test server's ask_live, which elicits during the call. */
  private static LoadedFlow writeLiveFlow(Path dir) throws Exception {
    return write(
        dir,
        "live.flow.java",
        LIVE_FLOW,
        Jvm.stdioServer("tools", List.of(), java.util.Map.of()),
        "2025-11-25");
  }

  /**
   * {@code source} as {@code file} in {@code dir}, beside a flows.json declaring {@code server}.
   */
  private static LoadedFlow write(
      Path dir, String file, String source, McpServerConfig server, String protocol)
      throws Exception {
    Files.writeString(dir.resolve(file), source);
    JsonNode s = McpServerConfigJson.write(server);
    ObjectNode entry = JSON.createObjectNode();
    entry.set("command", s.path("command"));
    entry.set("args", s.path("args"));
    entry.put("protocol", protocol);
    ObjectNode config = JSON.createObjectNode();
    config.putObject("mcp").set(server.name(), entry);
    Files.writeString(dir.resolve("flows.json"), config.toString());
    return LoadedFlow.load(dir.resolve(file).toString(), dir);
  }

  /** The output of the live flow run in {@code mode}, once it succeeded. */
  private static JsonNode runLive(Path dir, String mode) throws Exception {
    LoadedFlow flow = writeLiveFlow(dir);
    Journal journal = new InMemoryJournal(Clock.systemUTC());
    try (FlowsEngine engine = engine(journal)) {
      engine.startWorker();
      RunRef root = engine.start(flow, input(dir, mode), Optional.empty()).runId();
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);
      assertThat(done.status()).as(done.toString()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode out = done.steps().getFirst().output().orElseThrow();
      if (!mode.equals("none")) {
        JsonNode memo =
            journal.entries(root).stream()
                .map(r -> r.entry())
                .filter(
                    e ->
                        e instanceof JournalEntry.EffectConfirmed c
                            && c.surfacePath().equals("/memo/1/input/live-1"))
                .map(e -> ((JournalEntry.EffectConfirmed) e).output().orElseThrow())
                .findFirst()
                .orElseThrow();
        ((ObjectNode) out).set("memo", memo);
      }
      return out;
    }
  }

  @Test
  void aLiveElicitationOfA2025ServerDuringAnInlineCallIsAnsweredByTheHandlerAndJournaled(
      @TempDir Path dir) throws Exception {
    JsonNode out = runLive(dir, "answer");

    assertThat(out.path("said").asText()).isEqualTo("hello Ada");
    assertThat(asked(dir)).hasSize(1);
    assertThat(out.path("memo").path("answer").path("name").asText()).isEqualTo("Ada");
    JsonNode live = out.path("receipt").path("liveInput");
    assertThat(live).hasSize(1);
    assertThat(live.get(0).path("by").asText()).isEqualTo("onInput");
    assertThat(live.get(0).path("action").asText()).isEqualTo("accept");
    assertThat(live.get(0).path("request").path("params").path("message").asText())
        .isEqualTo("Who is asking?");
  }

  @Test
  void aLiveElicitationWithoutAHandlerIsDeclinedAtOnceAndTheReceiptSaysWhy(@TempDir Path dir)
      throws Exception {
    JsonNode out = runLive(dir, "none");

    assertThat(out.path("said").asText()).isEqualTo("no name given (decline)");
    JsonNode live = out.path("receipt").path("liveInput").get(0);
    assertThat(live.path("by").asText()).isEqualTo("flows");
    assertThat(live.path("action").asText()).isEqualTo("decline");
    assertThat(live.path("diagnostic").asText())
        .isEqualTo(dev.flows.worker.mcp.LiveInputs.DECLINED)
        .contains("cannot survive a crash");
  }

  @Test
  void aLiveElicitationWhoseHandlerThrowsIsDeclinedAndTheFailureJournaled(@TempDir Path dir)
      throws Exception {
    JsonNode out = runLive(dir, "throw");

    assertThat(out.path("said").asText()).isEqualTo("no name given (decline)");
    assertThat(out.path("memo").path("error").path("message").asText())
        .isEqualTo("no name is known here");
    assertThat(out.path("receipt").path("liveInput").get(0).path("by").asText())
        .isEqualTo("onInput");
  }

  private static LoadedFlow writeFlow(Path dir) throws Exception {
    return write(
        dir,
        "asker.flow.java",
        FLOW,
        Jvm.taskStdioServer(
            "forms",
            "--state=" + dir.resolve("tasks.json"),
            "--events=" + dir.resolve("events.jsonl")),
        "2026-07-28");
  }

  private static ObjectNode input(Path dir, String mode) {
    return JsonNodeFactory.instance
        .objectNode()
        .put("mode", mode)
        .put("log", dir.resolve("asked.log").toString());
  }

  private static List<String> asked(Path dir) throws Exception {
    Path log = dir.resolve("asked.log");
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  /** The {@code tools/call} lines of the server's own log. */
  private static List<JsonNode> calls(Path dir) throws Exception {
    return Files.readAllLines(dir.resolve("events.jsonl")).stream()
        .map(OnInputTest::read)
        .filter(e -> e.path("event").asText().equals("tools/call"))
        .toList();
  }

  private static JsonNode read(String line) {
    try {
      return JSON.readTree(line);
    } catch (Exception e) {
      throw new AssertionError(line, e);
    }
  }

  private static WorkerConfig brisk() {
    return WorkerConfig.defaults().toBuilder().pollInterval(Duration.ofMillis(50)).build();
  }

  private static FlowsEngine engine(Journal journal) {
    return new FlowsEngine(
        journal,
        brisk(),
        SdkConfig.DEFAULTS,
        McpClientConfig.DEFAULTS,
        McpCredentials.fromEnvironment());
  }

  /** A worker whose bodies make no inline call: every MCP call is a child some worker claims. */
  private static Worker claimingWorker(Journal journal, FlowResolver resolver, McpSessions s) {
    FlowBodyRunner runner = new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS);
    ExecutorRegistry executors =
        ExecutorRegistry.of(
            new DeterministicExecutor(brisk()),
            new AgentExecutor(
                List.of(new FlowInstructionExecutor(runner), new McpToolExecutor(s, journal))));
    Worker w = new Worker(journal, executors, brisk(), InstantSource.system());
    w.addRoutes(resolver::routes);
    w.addRoutePrefixes(resolver::routePrefixes);
    return w;
  }

  private static void assertAnsweredOnceByTheBody(Journal journal, RunRef root, Path dir)
      throws Exception {
    RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);
    assertThat(done.status()).as(done.toString()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(done.steps().getFirst().output().orElseThrow().path("said").asText())
        .isEqualTo("hello Ada");
    assertThat(asked(dir)).containsExactly("Who is asking?");
    // The answer is a memo of the body at the call's position, round 1.
    List<JournalEntry> rootEntries = journal.entries(root).stream().map(r -> r.entry()).toList();
    JsonNode memo =
        rootEntries.stream()
            .filter(
                e ->
                    e instanceof JournalEntry.EffectConfirmed c
                        && c.surfacePath().equals("/memo/1/input/1"))
            .map(e -> ((JournalEntry.EffectConfirmed) e).output().orElseThrow())
            .findFirst()
            .orElseThrow();
    assertThat(memo.path("verb").asText()).isEqualTo("onInput");
    assertThat(memo.path("answer").path("name").asText()).isEqualTo("Ada");
    RunRef child = journal.children(root).getFirst();
    assertThat(journal.entries(child))
        .filteredOn(r -> r.entry() instanceof JournalEntry.StepAnswered)
        .hasSize(1);
    // Re-issued with the answer and the state echoed, same idempotency key.
    List<JsonNode> calls = calls(dir);
    assertThat(calls).hasSize(2);
    assertThat(calls.get(1).path("key").asText()).isEqualTo(calls.get(0).path("key").asText());
    assertThat(calls.get(1).path("requestState").isTextual()).isTrue();
    assertThat(
            calls.get(1).path("inputResponses").path("name").path("content").path("name").asText())
        .isEqualTo("Ada");
  }

  @Test
  void aFirstCallMadeInlineIsAnsweredByTheBodysHandlerOnceAndReissuedWithTheSameKey(
      @TempDir Path dir) throws Exception {
    LoadedFlow flow = writeFlow(dir);
    Journal journal = new InMemoryJournal(Clock.systemUTC());
    try (FlowsEngine engine = engine(journal)) {
      engine.startWorker();
      RunRef root = engine.start(flow, input(dir, "answer"), Optional.empty()).runId();
      assertAnsweredOnceByTheBody(journal, root, dir);
    }
  }

  @Test
  void aCallClaimedByAWorkerAsAChildIsAnsweredByTheBodysHandlerTheSameWay(@TempDir Path dir)
      throws Exception {
    LoadedFlow flow = writeFlow(dir);
    Journal journal = new InMemoryJournal(Clock.systemUTC());
    try (FlowsEngine admitter = engine(journal);
        McpSessions sessions =
            new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment())) {
      RunRef root = admitter.start(flow, input(dir, "answer"), Optional.empty()).runId();
      Worker worker = claimingWorker(journal, admitter.resolver(), sessions);
      try {
        worker.start();
        assertAnsweredOnceByTheBody(journal, root, dir);
      } finally {
        worker.close();
      }
    }
  }

  @Test
  void aHandlerThatDeclinesSendsTheDeclineAndTheCallGoesOn(@TempDir Path dir) throws Exception {
    LoadedFlow flow = writeFlow(dir);
    Journal journal = new InMemoryJournal(Clock.systemUTC());
    try (FlowsEngine engine = engine(journal)) {
      engine.startWorker();
      RunRef root = engine.start(flow, input(dir, "decline"), Optional.empty()).runId();
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);
      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().path("said").asText())
          .isEqualTo("no name given (decline)");
      assertThat(calls(dir).get(1).path("inputResponses").path("name").path("action").asText())
          .isEqualTo("decline");
    }
  }

  @Test
  void aHandlerThatThrowsLeavesTheCallParkedForAnOperatorWithTheReasonAndIsNotAskedAgain(
      @TempDir Path dir) throws Exception {
    assertParkedForAnOperator(dir, "throw", "no name is known here");
  }

  @Test
  void aHandlerAnswerTheSchemaRefusesLeavesTheCallParkedForAnOperatorWithTheSchemaError(
      @TempDir Path dir) throws Exception {
    assertParkedForAnOperator(dir, "invalid", "/name: expected string, got number");
  }

  private void assertParkedForAnOperator(Path dir, String mode, String why) throws Exception {
    LoadedFlow flow = writeFlow(dir);
    Journal journal = new InMemoryJournal(Clock.systemUTC());
    try (FlowsEngine engine = engine(journal)) {
      engine.startWorker();
      RunRef root = engine.start(flow, input(dir, mode), Optional.empty()).runId();
      RunSnapshot parked = EngineEndToEndTest.awaitTerminal(journal, root);
      assertThat(parked.status()).isEqualTo(RunStatus.PARKED);
      JsonNode tail =
          journal.entries(root).stream()
              .map(r -> r.entry())
              .filter(e -> e instanceof JournalEntry.StepCompleted)
              .map(e -> ((JournalEntry.StepCompleted) e).trajectoryTail().orElseThrow())
              .reduce((a, b) -> b)
              .orElseThrow();
      RunRef child = journal.children(root).getFirst();
      assertThat(tail.path("diagnostic").asText()).isEqualTo("input_required");
      assertThat(tail.path("parkedChild").asText()).isEqualTo(child.value());
      assertThat(tail.path("message").asText())
          .contains("onInput handler of f.mcp(\"forms\").tool(\"ask_form\")")
          .contains(why)
          .contains("flows runs answer " + child.value() + " call");
      assertThat(journal.run(child).orElseThrow().status()).isEqualTo(RunStatus.PARKED);

      journal.answerInput(
          child, "call", new InputAnswer.Accept(JSON.createObjectNode().put("name", "Bo")), "ops");
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);
      assertThat(done.status()).as(done.toString()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().path("said").asText())
          .isEqualTo("hello Bo");
      assertThat(asked(dir)).as("the failed round is journaled, not asked again").hasSize(1);
    }
  }

  @Test
  void aBodyThatDiesBetweenJournalingTheAnswerAndAnsweringIsReplayedWithoutAskingAgain(
      @TempDir Path dir) throws Exception {
    LoadedFlow flow = writeFlow(dir);
    InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
    AtomicBoolean held = new AtomicBoolean();
    CountDownLatch reached = new CountDownLatch(1);
    // The first worker never gets its answer through: it is stopped there, as if it died.
    Journal stuck =
        new ForwardingJournal(journal) {
          @Override
          public RunSnapshot answerInput(
              RunRef runId, String stepId, InputAnswer answer, String by) {
            if (held.compareAndSet(false, true)) {
              reached.countDown();
              try {
                new CountDownLatch(1).await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              throw new FlowsException(
                  ErrorCode.LEASE_CONFLICT, "stopped", runId.value(), "the journal re-drives it");
            }
            return super.answerInput(runId, stepId, answer, by);
          }
        };
    RunRef root;
    WorkerConfig quickStop = brisk().toBuilder().stopGrace(Duration.ZERO).build();
    try (FlowsEngine first =
        new FlowsEngine(
            stuck,
            quickStop,
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment())) {
      first.startWorker();
      root = first.start(flow, input(dir, "answer"), Optional.empty()).runId();
      assertThat(reached.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    }
    RunRef child = journal.children(root).getFirst();
    assertThat(journal.run(child).orElseThrow().status()).isEqualTo(RunStatus.PARKED);
    try (FlowsEngine second = engine(journal)) {
      second.acceptJournalSources().startWorker();
      assertAnsweredOnceByTheBody(journal, root, dir);
    }
  }
}
