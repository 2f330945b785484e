package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The late-child case on Postgres: the tombstone, not luck, stops a start that lands late. */
class PostgresDispatchDeadlineTest {
  private static PostgresJournal journal;

  @BeforeAll
  static void db() {
    journal =
        PostgresJournal.connect(
            JournalStoreConfig.forUrl(TestDatabase.fresh("dispatch").jdbcUrl()));
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  @Test
  void aChildStartHeldBackPastTheDeadlineIsCancelledTheCallFailsAndNoRunIsLeftOpen()
      throws Exception {
    SdkConfig config =
        SdkConfig.DEFAULTS.toBuilder().dispatchDeadline(Duration.ofMillis(500)).build();
    FlowResolver resolver = new FlowResolver();
    CountDownLatch landed = new CountDownLatch(1);
    FlowBodyRunner runner =
        new FlowBodyRunner(
            journal,
            resolver,
            config,
            (j, req) -> {
              try {
                Thread.sleep(2_000);
                j.admit(req, Admit.queued());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                landed.countDown();
              }
            });
    DurableFlowTest.TestFlow flow =
        new DurableFlowTest.TestFlow(
            FlowHeader.named("late").mcp("tickets").build(),
            (f, in) -> {
              f.mcp("tickets").tool("classify").call(Map.of("x", 1));
              return JsonNodeFactory.instance.nullNode();
            });
    resolver.register(flow);
    RunRef root =
        journal
            .admit(
                StartRun.of(
                    "late-" + System.nanoTime(),
                    Lowering.root(
                        flow.header(),
                        new FlowBodyInstruction.Origin.ClassFlow("late"),
                        JsonNodeFactory.instance.objectNode(),
                        DurableFlowTest.inventory(),
                        config)),
                Admit.queued())
            .runId();
    MiniWorker w = new MiniWorker(journal, runner);
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!journal.run(root).orElseThrow().status().terminal() && System.nanoTime() < until) {
      if (w.tick() == 0) {
        journal.awaitWork(Duration.ofMillis(50));
      }
    }
    landed.await();
    RunSnapshot done = journal.run(root).orElseThrow();
    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    String diagnostic =
        journal.entries(root).stream()
            .map(r -> r.entry())
            .filter(e -> e instanceof JournalEntry.StepCompleted)
            .map(e -> ((JournalEntry.StepCompleted) e).trajectoryTail().orElseThrow())
            .toList()
            .getLast()
            .path("diagnostic")
            .asText();
    assertThat(diagnostic).isEqualTo("dispatch_timeout");
    RunRef child = Lowering.childId(root, 1);
    RunSnapshot c = journal.run(child).orElseThrow();
    assertThat(c.status()).isEqualTo(RunStatus.CANCELED);
    assertThat(c.steps()).as("the start that landed late was refused").isEmpty();
    assertThat(List.of(root, child))
        .allSatisfy(r -> assertThat(journal.run(r).orElseThrow().status().terminal()).isTrue());
    assertThat(w.calls).isEmpty();
  }
}
