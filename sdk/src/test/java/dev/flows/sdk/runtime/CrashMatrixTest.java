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
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.worker.FaultPoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The crash matrix on Postgres: for each fault point a worker JVM dies there (halt, as a SIGKILL),
 * a second worker takes over once its leases are expired, and the journal and the server agree that
 * nothing confirmed was done twice.
 */
class CrashMatrixTest {
  private static final Duration LEASE = TestWorkerMain.LEASE;
  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;
  private static FlowsEngine engine;
  private static Path dir;

  static final String FLOW =
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
          String who = f.step("who", () -> input.path("who").asText()).asText();
          String a = f.mcp("SERVER").tool("ledger").call(Map.of("n", 1)).text();
          f.step("between", () -> a.length());
          String b = f.mcp("SERVER").tool("ledger").call(Map.of("n", 2)).text();
          return JsonNodeFactory.instance.objectNode().put("who", who).put("a", a).put("b", b);
        }
      }
      """;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("crash_matrix");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()));
    engine = FlowsEngine.withDefaults(journal);
    dir = Files.createTempDirectory("crash-matrix");
  }

  @AfterAll
  static void tearDown() {
    engine.close();
    journal.close();
  }

  private static LoadedFlow flow(String server, boolean idempotent, Path ledger) throws Exception {
    return LedgerFlows.write(
        dir.resolve(server + "-" + System.nanoTime()),
        "pay.flow.java",
        FLOW.replace("SERVER", server),
        server,
        idempotent,
        ledger);
  }

  private static Process worker(Optional<FaultPoint> fault) throws Exception {
    return TestWorkerMain.launch(db.jdbcUrl(), LEASE, fault, 0);
  }

  private static RunSnapshot awaitSettled(RunRef run) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal.run(run).orElseThrow();
      if (s.status().terminal() || s.status() == RunStatus.PARKED) {
        return s;
      }
      journal.awaitWork(Duration.ofMillis(200));
    }
    throw new AssertionError("run did not settle: " + journal.run(run));
  }

  /** Runs the flow with a worker dying at {@code point}, then a healthy one. */
  private static RunSnapshot crashThenRecover(LoadedFlow flow, FaultPoint point) throws Exception {
    RunRef root =
        engine
            .start(flow, JsonNodeFactory.instance.objectNode().put("who", "ada"), Optional.empty())
            .runId();
    Process dying = worker(Optional.of(point));
    assertThat(dying.waitFor(120, TimeUnit.SECONDS)).as("the faulty worker died").isTrue();
    assertThat(dying.exitValue()).isEqualTo(FaultPoint.HALT_STATUS);
    // What the dead worker held runs out now, not after a wait a busy machine could outlast.
    ExpiredLeases.all(db.jdbcUrl());
    Process healthy = worker(Optional.empty());
    try {
      return awaitSettled(root);
    } finally {
      healthy.destroy();
      healthy.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private static List<String> lines(Path p) throws Exception {
    return Files.exists(p) ? Files.readAllLines(p) : List.of();
  }

  private static void assertReceiptsExactlyOnce(RunRef root) {
    for (RunRef c : journal.children(root)) {
      var entries = journal.entries(c).stream().map(r -> r.entry()).toList();
      if (journal.run(c).orElseThrow().status() == RunStatus.SUCCEEDED) {
        assertThat(entries)
            .as("one confirmation per call")
            .filteredOn(e -> e instanceof JournalEntry.EffectConfirmed)
            .hasSize(1);
      }
    }
  }

  @ParameterizedTest(name = "an idempotency-aware server, worker dies {0}")
  @EnumSource(FaultPoint.class)
  void aWorkerKilledAtEachFaultPointIsReplacedAndEveryKeyIsPerformedOnce(FaultPoint point)
      throws Exception {
    Path ledger = dir.resolve("ledger-" + point.wire());
    RunSnapshot done = crashThenRecover(flow("idem", true, ledger), point);
    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertReceiptsExactlyOnce(done.runId());
    List<String> performed = lines(ledger);
    assertThat(performed).hasSize(2).doesNotHaveDuplicates();
    JsonNode out = done.steps().getFirst().output().orElseThrow();
    assertThat(out.path("a").asText()).contains(performed.get(0));
    // The dead attempt shows in the journal as lease_expired (the root's or a child's).
    List<RunRef> runs = new ArrayList<>(journal.children(done.runId()));
    runs.add(done.runId());
    assertThat(
            runs.stream()
                .flatMap(r -> journal.entries(r).stream())
                .map(r -> r.entry())
                .filter(
                    e ->
                        e instanceof JournalEntry.StepCompleted c
                            && c.reason().wire().equals("lease_expired")))
        .isNotEmpty();
  }

  @ParameterizedTest(name = "a server without idempotency keys, worker dies {0}")
  @EnumSource(FaultPoint.class)
  void aNonIdempotentCallOfUnknownOutcomeIsNeverSentAgainButParked(FaultPoint point)
      throws Exception {
    Path ledger = dir.resolve("plain-" + point.wire());
    RunSnapshot done = crashThenRecover(flow("plain", false, ledger), point);
    List<String> calls = lines(Path.of(ledger + ".calls"));
    assertThat(calls).as("no key was ever sent twice").doesNotHaveDuplicates();
    switch (point) {
      case AFTER_RECORD, DURING_CALL, AFTER_CALL_BEFORE_CONFIRM -> {
        assertThat(done.status()).isEqualTo(RunStatus.PARKED);
        RunRef child = journal.children(done.runId()).getFirst();
        assertThat(journal.run(child).orElseThrow().status()).isEqualTo(RunStatus.PARKED);
      }
      case AFTER_CONFIRM_BEFORE_COMPLETE, BETWEEN_BODY_CALLS -> {
        assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(calls).hasSize(2);
        assertReceiptsExactlyOnce(done.runId());
      }
    }
  }
}
