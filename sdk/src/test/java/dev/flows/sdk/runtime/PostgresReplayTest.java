package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.sdk.FlowHeader;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Replay after a lost body attempt, on Postgres: journaled answers, and a changed call refused. */
class PostgresReplayTest {
  private static String url;
  private static PostgresJournal journal;

  @BeforeAll
  static void db() {
    url = TestDatabase.fresh("replay").jdbcUrl();
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  private RunSnapshot runTwice(DurableFlowTest.TestFlow.Body body, CountDownLatch firstParked)
      throws Exception {
    FlowResolver resolver = new FlowResolver();
    DurableFlowTest.TestFlow flow =
        new DurableFlowTest.TestFlow(
            FlowHeader.named("replay" + System.nanoTime()).mcp("tickets").build(), body);
    resolver.register(flow);
    RunRef root =
        journal
            .admit(
                StartRun.of(
                    "replay-" + System.nanoTime(),
                    Lowering.root(
                        flow.header(),
                        new FlowBodyInstruction.Origin.ClassFlow("replay"),
                        JsonNodeFactory.instance.objectNode(),
                        DurableFlowTest.inventory(),
                        SdkConfig.DEFAULTS)),
                Admit.queued())
            .runId();
    MiniWorker w =
        new MiniWorker(journal, new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS));
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (firstParked.getCount() > 0 && System.nanoTime() < until) {
      if (w.tick() == 0) {
        journal.awaitWork(Duration.ofMillis(50));
      }
    }
    w.killBodies(); // the first attempt's worker is gone
    // Its lease runs out now, not after a wait a busy machine could outlast.
    ExpiredLeases.of(url, root);
    while (System.nanoTime() < until) {
      journal.expireLeases();
      RunSnapshot s = journal.run(root).orElseThrow();
      if (s.status().terminal()) {
        return s;
      }
      if (w.tick() == 0) {
        journal.awaitWork(Duration.ofMillis(100));
      }
    }
    throw new AssertionError("run did not end: " + journal.run(root));
  }

  @Test
  void aSecondAttemptReplaysJournaledCallsAndStepsWithoutRepeatingThem() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger stepRuns = new AtomicInteger();
    CountDownLatch parked = new CountDownLatch(1);
    RunSnapshot done =
        runTwice(
            (f, in) -> {
              int attempt = attempts.incrementAndGet();
              f.step("s", () -> stepRuns.incrementAndGet());
              String a = f.mcp("tickets").tool("classify").call(Map.of("n", 1)).text();
              if (attempt == 1) {
                parked.countDown();
                new CountDownLatch(1).await();
              }
              return JsonNodeFactory.instance.textNode(a);
            },
            parked);
    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(attempts.get()).isEqualTo(2);
    assertThat(stepRuns.get()).isEqualTo(1);
    assertThat(journal.children(done.runId())).hasSize(1);
  }

  @Test
  void aSecondAttemptThatMakesAnotherCallIsRefusedNondeterministic() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    CountDownLatch parked = new CountDownLatch(1);
    RunSnapshot done =
        runTwice(
            (f, in) -> {
              int attempt = attempts.incrementAndGet();
              f.mcp("tickets").tool(attempt == 1 ? "classify" : "create").call(Map.of());
              if (attempt == 1) {
                parked.countDown();
                new CountDownLatch(1).await();
              }
              return JsonNodeFactory.instance.nullNode();
            },
            parked);
    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    JsonNode tail =
        journal.entries(done.runId()).stream()
            .map(r -> r.entry())
            .filter(
                e -> e instanceof JournalEntry.StepCompleted c && c.trajectoryTail().isPresent())
            .map(e -> ((JournalEntry.StepCompleted) e).trajectoryTail().orElseThrow())
            .reduce((a, b) -> b)
            .orElseThrow();
    assertThat(tail.path("diagnostic").asText()).isEqualTo("nondeterministic_replay");
    assertThat(tail.path("message").asText()).contains("classify").contains("create");
  }
}
