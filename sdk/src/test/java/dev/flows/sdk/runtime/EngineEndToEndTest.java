package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A single-file flow, a real stdio MCP server, the real worker: from source to receipts. */
class EngineEndToEndTest {
  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Triage implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("triage").version("1").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String text = f.step("normalize", () -> input.path("text").asText().trim()).asText();
          String echoed = f.mcp("tools").tool("echo").call(Map.of("text", text)).text();
          String sum = f.mcp("tools").tool("add").call(Map.of("a", 2, "b", 3)).text();
          f.step("audit", () -> Map.of("echoed", echoed, "sum", sum));
          String meta = f.mcp("tools").tool("ledger").call(Map.of("note", echoed)).text();
          return JsonNodeFactory.instance.objectNode().put("echoed", echoed).put("sum", sum)
              .put("meta", meta);
        }
      }
      """;

  static void writeFlow(Path dir) throws Exception {
    Files.writeString(dir.resolve("triage.flow.java"), FLOW);
    JsonNode s =
        McpServerConfigJson.write(
            Jvm.stdioServer(
                "tools", List.of(), Map.of("FLOWS_TEST_LEDGER", dir.resolve("ledger").toString())));
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\"tools\": {\"command\": "
            + s.path("command")
            + ", \"args\": "
            + s.path("args")
            + ", \"setEnv\": "
            + s.path("env")
            + "}}}");
  }

  /** The journal the engine runs on; Postgres in the subclass. */
  protected Journal journal() {
    return new InMemoryJournal(Clock.systemUTC());
  }

  /** The real engine on {@code journal}, polling briskly, with {@code config}. */
  static FlowsEngine engine(Journal journal, SdkConfig config) {
    return new FlowsEngine(
        journal,
        WorkerConfig.defaults().toBuilder().pollInterval(Duration.ofMillis(50)).build(),
        config,
        McpClientConfig.DEFAULTS,
        McpCredentials.fromEnvironment());
  }

  static RunSnapshot awaitTerminal(Journal journal, RunRef run) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal.run(run).orElseThrow();
      if (s.status().terminal() || s.status() == RunStatus.PARKED) {
        return s;
      }
      journal.awaitWork(Duration.ofMillis(200));
    }
    throw new AssertionError("run did not end: " + journal.run(run));
  }

  @Test
  void aSingleFileFlowRunsThroughTheWorkerWithThreeReceiptsAndTwoMemos(@TempDir Path dir)
      throws Exception {
    writeFlow(dir);
    Journal journal = journal();
    try (FlowsEngine engine = engine(journal, SdkConfig.DEFAULTS)) {
      LoadedFlow flow = LoadedFlow.load(dir.resolve("triage.flow.java").toString(), dir);
      RunRef root =
          engine
              .start(
                  flow,
                  JsonNodeFactory.instance.objectNode().put("text", "  hello "),
                  Optional.empty())
              .runId();
      engine.startWorker();
      RunSnapshot done = awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode out = done.steps().getFirst().output().orElseThrow();
      assertThat(out.path("echoed").asText()).isEqualTo("hello");
      assertThat(out.path("sum").asText()).isEqualTo("5");
      List<RunRef> children = journal.children(root);
      assertThat(children).hasSize(3);
      Set<String> keys = new HashSet<>();
      for (RunRef c : children) {
        List<JournalEntry> entries = journal.entries(c).stream().map(r -> r.entry()).toList();
        assertThat(entries).filteredOn(e -> e instanceof JournalEntry.EffectRecorded).hasSize(1);
        assertThat(entries).filteredOn(e -> e instanceof JournalEntry.EffectConfirmed).hasSize(1);
        JsonNode receipt = journal.run(c).orElseThrow().steps().getFirst().output().orElseThrow();
        assertThat(receipt.path("type").asText()).isEqualTo("mcp");
        keys.add(receipt.path("idempotencyKey").asText());
      }
      assertThat(keys).hasSize(3);
      // First calls run inline on the body's own worker: admitted already claimed by it, and
      // completed in the transaction that confirmed the effect.
      for (RunRef c : children) {
        List<JournalEntry> entries = journal.entries(c).stream().map(r -> r.entry()).toList();
        assertThat(entries)
            .extracting(JournalEntry::type)
            .containsExactly(
                "run.spawned",
                "step.attempt.started",
                "effect.recorded",
                "effect.confirmed",
                "step.completed",
                "run.completed");
        assertThat(((JournalEntry.StepAttemptStarted) entries.get(1)).workerId())
            .isEqualTo(engine.worker().id());
      }
      // The server saw the idempotency key of the meta call in _meta.
      String metaKey =
          journal
              .run(children.get(2))
              .orElseThrow()
              .steps()
              .getFirst()
              .output()
              .orElseThrow()
              .path("idempotencyKey")
              .asText();
      assertThat(out.path("meta").asText()).contains(metaKey);
      // Two memos on the root step, each recorded and confirmed once.
      assertThat(journal.entries(root))
          .filteredOn(r -> r.entry() instanceof JournalEntry.EffectConfirmed)
          .hasSize(2);
    }
  }

  static final String WAITER =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Waiter implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("waiter").version("1").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String before = f.step("before", () -> "b").asText();
          String slept = f.mcp("tools").tool("sleep").call(Map.of("ms", 1500)).text();
          try {
            String meta = f.mcp("tools").tool("ledger").call(Map.of()).text();
            return JsonNodeFactory.instance.objectNode().put("slept", slept).put("meta", meta)
                .put("before", before);
          } catch (Exception swallowed) {
            // A suspension is not an Exception: this body cannot swallow it.
            throw new IllegalStateException(swallowed);
          }
        }
      }
      """;

  @Test
  void aBodyWaitingLongerThanSuspendAfterGivesItsAttemptBackAndIsReplayedWhenTheCallEnds(
      @TempDir Path dir) throws Exception {
    writeFlow(dir);
    Files.writeString(dir.resolve("waiter.flow.java"), WAITER);
    Journal journal = journal();
    try (FlowsEngine engine =
        engine(
            journal, SdkConfig.DEFAULTS.toBuilder().suspendAfter(Duration.ofMillis(200)).build())) {
      LoadedFlow flow = LoadedFlow.load(dir.resolve("waiter.flow.java").toString(), dir);
      RunRef root =
          engine.start(flow, JsonNodeFactory.instance.objectNode(), Optional.empty()).runId();
      engine.startWorker();
      RunSnapshot done = awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode out = done.steps().getFirst().output().orElseThrow();
      assertThat(out.path("slept").asText()).isEqualTo("slept");
      assertThat(out.path("before").asText()).isEqualTo("b");
      List<JournalEntry.StepCompleted> ends =
          journal.entries(root).stream()
              .map(r -> r.entry())
              .filter(e -> e instanceof JournalEntry.StepCompleted)
              .map(e -> (JournalEntry.StepCompleted) e)
              .toList();
      // The first attempt gave the step back while the sleep ran; a later one finished it.
      assertThat(ends.getFirst().reason()).isEqualTo(CompletionReason.SUSPENDED);
      assertThat(ends.getLast().reason()).isEqualTo(CompletionReason.SUCCESS);
      assertThat(done.steps().getFirst().attempts()).isGreaterThanOrEqualTo(2);
      // Every call performed once, and the memo journaled once, whatever was replayed.
      List<RunRef> children = journal.children(root);
      assertThat(children).hasSize(2);
      for (RunRef c : children) {
        assertThat(journal.entries(c))
            .filteredOn(r -> r.entry() instanceof JournalEntry.EffectConfirmed)
            .hasSize(1);
      }
      assertThat(journal.entries(root))
          .filteredOn(r -> r.entry() instanceof JournalEntry.EffectConfirmed)
          .hasSize(1);
      assertThat(Files.readAllLines(dir.resolve("ledger.calls"))).hasSize(1);
    }
  }

  @Test
  void withNoPlaceToWaitInMemoryEveryWaitSuspendsAndEachCallIsStillMadeOnce(@TempDir Path dir)
      throws Exception {
    writeFlow(dir);
    Journal journal = journal();
    try (FlowsEngine engine =
        engine(journal, SdkConfig.DEFAULTS.toBuilder().maxResidentWaits(0).build())) {
      LoadedFlow flow = LoadedFlow.load(dir.resolve("triage.flow.java").toString(), dir);
      RunRef root =
          engine
              .start(
                  flow, JsonNodeFactory.instance.objectNode().put("text", " x "), Optional.empty())
              .runId();
      engine.startWorker();
      RunSnapshot done = awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().path("sum").asText())
          .isEqualTo("5");
      List<CompletionReason> reasons =
          journal.entries(root).stream()
              .map(r -> r.entry())
              .filter(e -> e instanceof JournalEntry.StepCompleted)
              .map(e -> ((JournalEntry.StepCompleted) e).reason())
              .toList();
      // Every call that was still running when the body came to wait on it (each one, unless the
      // server answered before the body looked) was waited on without a place in memory: the
      // attempt was given back, and the last attempt found every child ended.
      assertThat(reasons.getLast()).isEqualTo(CompletionReason.SUCCESS);
      assertThat(reasons.subList(0, reasons.size() - 1))
          .isNotEmpty()
          .hasSizeLessThanOrEqualTo(3)
          .containsOnly(CompletionReason.SUSPENDED);
      for (RunRef c : journal.children(root)) {
        assertThat(journal.entries(c))
            .filteredOn(r -> r.entry() instanceof JournalEntry.EffectConfirmed)
            .hasSize(1);
      }
      assertThat(Files.readAllLines(dir.resolve("ledger.calls"))).hasSize(1);
    }
  }
}
