package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.worker.FaultPoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Parallel calls on Postgres through the real worker and a real stdio server whose {@code timed}
 * tool logs, by its own clock, when each call started and ended and whether its key was performed.
 */
class FanoutTest {
  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;
  private static Path dir;

  /** Ten calls of a 300 ms tool issued at once, then waited for together. */
  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import com.fasterxml.jackson.databind.node.ArrayNode;
      import dev.flows.sdk.*;
      import java.util.ArrayList;
      import java.util.List;
      import java.util.Map;

      public class Fan implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("fan").version("1").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          List<Pending<McpResult>> calls = new ArrayList<>();
          for (int n = 0; n < 10; n++) {
            calls.add(f.mcp("tools").tool("timed")
                .callAsync(Map.of("ms", 300, "log", input.path("log").asText(), "n", n)));
          }
          ArrayNode out = JsonNodeFactory.instance.arrayNode();
          for (McpResult r : f.all(calls)) {
            out.add(r.text());
          }
          return out;
        }
      }
      """;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("fanout");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()));
    dir = Files.createTempDirectory("fanout");
  }

  @AfterAll
  static void tearDown() {
    journal.close();
  }

  private static LoadedFlow flow(Path at) throws Exception {
    return LedgerFlows.write(at, "fan.flow.java", FLOW, "tools", true, at.resolve("ledger"));
  }

  /** One line of the tool's log: a call's key, start and end (server clock), first perform. */
  record Call(String key, long start, long end, boolean performed) {
    static Call parse(String line) {
      String[] p = line.split(" ");
      return new Call(p[0], Long.parseLong(p[1]), Long.parseLong(p[2]), Boolean.parseBoolean(p[3]));
    }
  }

  private static List<Call> calls(Path log) throws Exception {
    return Files.exists(log)
        ? Files.readAllLines(log).stream().map(Call::parse).toList()
        : List.of();
  }

  private static RunRef start(FlowsEngine engine, LoadedFlow flow, Path log) {
    return engine
        .start(
            flow,
            JsonNodeFactory.instance.objectNode().put("log", log.toString()),
            Optional.empty())
        .runId();
  }

  private static List<String> expected() {
    List<String> out = new ArrayList<>();
    for (int n = 0; n < 10; n++) {
      out.add("n=" + n);
    }
    return out;
  }

  @Test
  void tenCallAsyncCallsOfA300MsToolAreInFlightAtOnceByTheServersOwnClock() throws Exception {
    Path at = dir.resolve("overlap");
    Path log = at.resolve("timed.log");
    try (FlowsEngine engine = EngineEndToEndTest.engine(journal, SdkConfig.DEFAULTS)) {
      RunRef root = start(engine, flow(at), log);
      engine.startWorker();
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      List<String> out = new ArrayList<>();
      done.steps().getFirst().output().orElseThrow().forEach(n -> out.add(n.asText()));
      assertThat(out).containsExactlyElementsOf(expected());
    }
    List<Call> calls = calls(log);
    assertThat(calls).hasSize(10);
    long lastStart = calls.stream().mapToLong(Call::start).max().orElseThrow();
    long firstEnd = calls.stream().mapToLong(Call::end).min().orElseThrow();
    // Every call had started before any ended: all ten were in flight at once.
    assertThat(lastStart).as("the last call started before the first ended").isLessThan(firstEnd);
    assertThat(calls).extracting(Call::key).doesNotHaveDuplicates();
  }

  @Test
  void aWorkerKilledMidFanOutPerformsEachKeyAtMostOnceAndTheBodyAnswersAsAnUninterruptedRun()
      throws Exception {
    Path at = dir.resolve("crash");
    Path log = at.resolve("timed.log");
    RunRef root;
    try (FlowsEngine admitting = EngineEndToEndTest.engine(journal, SdkConfig.DEFAULTS)) {
      root = start(admitting, flow(at), log);
    }
    // The fourth call to be sent kills its worker, with three calls in flight on the server.
    Process dying = worker(Optional.of(FaultPoint.DURING_CALL), 3);
    assertThat(dying.waitFor(120, TimeUnit.SECONDS)).as("the faulty worker died").isTrue();
    assertThat(dying.exitValue()).isEqualTo(FaultPoint.HALT_STATUS);
    // What the dead worker held runs out now, not after a wait a busy machine could outlast.
    ExpiredLeases.all(db.jdbcUrl());
    assertThat(journal.children(root)).as("the fan-out was under way").hasSizeGreaterThan(3);
    Process healthy = worker(Optional.empty(), 0);
    RunSnapshot done;
    try {
      done = EngineEndToEndTest.awaitTerminal(journal, root);
    } finally {
      healthy.destroy();
      healthy.waitFor(30, TimeUnit.SECONDS);
    }

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    List<String> out = new ArrayList<>();
    done.steps().getFirst().output().orElseThrow().forEach(n -> out.add(n.asText()));
    assertThat(out).containsExactlyElementsOf(expected());
    // A server killed mid-call may have performed a key without logging the call: the keys
    // performed are the ones it kept, and every call sent again found its key there.
    List<String> performed = Files.readAllLines(Path.of(log + ".performed"));
    List<String> keys = new ArrayList<>();
    for (RunRef c : journal.children(root)) {
      keys.add(
          journal
              .run(c)
              .orElseThrow()
              .steps()
              .getFirst()
              .output()
              .orElseThrow()
              .path("idempotencyKey")
              .asText());
    }
    assertThat(performed).as("each key performed once").doesNotHaveDuplicates();
    assertThat(performed).containsExactlyInAnyOrderElementsOf(keys);
    assertThat(calls(log))
        .as("calls sent again after the crash were not performed again")
        .anyMatch(c -> !c.performed());
    assertThat(journal.children(root)).hasSize(10);
  }

  private static Process worker(Optional<FaultPoint> fault, int skip) throws Exception {
    return TestWorkerMain.launch(db.jdbcUrl(), TestWorkerMain.LEASE, fault, skip);
  }
}
