package dev.flows.embed;

import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.RunId;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One service registering a flow at versions 1 and 2: a start by name takes the newest, a run of
 * the old version still replays on its own code.
 */
class SideBySideVersionsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static boolean madeStep(Flows flows, RunId run, String step) {
    return flows.journal().entries(Boundary.ref(run)).stream()
        .map(r -> r.entry())
        .anyMatch(
            e ->
                e instanceof JournalEntry.EffectConfirmed c
                    && c.output().map(o -> o.path("name").asText().equals(step)).orElse(false));
  }

  private static void awaitWaiting(Flows flows, RunId run) throws InterruptedException {
    long until = System.nanoTime() + WAIT.toNanos();
    while (flows.journal().run(Boundary.ref(run)).orElseThrow().steps().getFirst().status()
        != StepStatus.READY) {
      assertThat(System.nanoTime()).as("the body suspended on its wait").isLessThan(until);
      Thread.sleep(20);
    }
  }

  @Test
  void runsOfBothVersionsFinishEachOnItsOwnCodeAndAStartByNameTakesTheNewest() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("side_by_side");
    try (Flows flows =
        withWorker(
                on(db)
                    .register(
                        new ReplayCheckTest.Approval(), new ReplayCheckTest.ApprovalChecked()))
            .build()) {
      RunHandle<JsonNode> old =
          flows.start(ReplayCheckTest.Approval.class, TestFlows.json(Map.of("n", 1)));
      RunHandle<JsonNode> byName =
          flows.start("approval", TestFlows.json(Map.of("n", 2)), StartOptions.none());
      awaitWaiting(flows, old.runId());
      awaitWaiting(flows, byName.runId());
      old.signal("approve", null);
      byName.signal("approve", null);

      assertThat(old.result(WAIT).asText()).isEqualTo("approved");
      assertThat(byName.result(WAIT).asText()).isEqualTo("approved");
      assertThat(madeStep(flows, old.runId(), "fraud-check")).as("version 1's code").isFalse();
      assertThat(madeStep(flows, byName.runId(), "fraud-check")).as("version 2's code").isTrue();
    }
  }
}
