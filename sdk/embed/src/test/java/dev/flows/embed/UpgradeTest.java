package dev.flows.embed;

import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.RunId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Flows#upgrade} on Postgres: runs of an approval flow waiting on their signal, refused
 * where version 2 diverges, moved with the new step behind a patch, then finished by the new code
 * along their old path.
 */
class UpgradeTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private TestDatabase.Fresh db;

  @BeforeEach
  void freshDatabase() {
    db = TestDatabase.fresh("upgrade_embed");
  }

  private static List<RunId> waitingRuns(Flows v1, int n) throws Exception {
    List<RunId> waiting = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      waiting.add(v1.start(ReplayCheckTest.Approval.class, TestFlows.json(Map.of("n", i))).runId());
    }
    long until = System.nanoTime() + WAIT.toNanos();
    for (RunId id : waiting) {
      while (v1.journal().run(Boundary.ref(id)).orElseThrow().steps().getFirst().status()
          != StepStatus.READY) {
        assertThat(System.nanoTime()).as("the body suspended on its wait").isLessThan(until);
        Thread.sleep(20);
      }
    }
    return waiting;
  }

  private static List<String> memos(Flows flows, RunId run) {
    return flows.journal().entries(Boundary.ref(run)).stream()
        .map(e -> e.entry().toString())
        .toList();
  }

  @Test
  void aRunIsRefusedWhereVersion2DivergesAndMovedWithItsStepBehindAPatchThenEndsOnTheOldPath()
      throws Exception {
    List<RunId> waiting;
    try (Flows v1 = withWorker(on(db).register(new ReplayCheckTest.Approval())).build()) {
      waiting = waitingRuns(v1, 3);
    }

    try (Flows changed = on(db).register(new ReplayCheckTest.ApprovalChecked()).build()) {
      UpgradeReport refused =
          changed.upgrade(
              ReplayCheckTest.ApprovalChecked.class,
              UpgradeRuns.runs(waiting.getFirst(), new RunId("no-such-run")));
      assertThat(refused.flow()).isEqualTo("approval");
      assertThat(refused.version()).isEqualTo("2");
      UpgradeReport.Run first = refused.runs().getFirst();
      assertThat(first.upgraded()).isFalse();
      assertThat(first.code()).contains("replay_incompatible");
      assertThat(first.position()).isEqualTo(OptionalInt.of(2));
      assertThat(first.outcome())
          .contains(
              "diverges at position 2: journal has f.awaitSignal(\"approve\"), code makes"
                  + " f.step(\"fraud-check\")");
      assertThat(refused.runs().get(1).code()).contains("run_not_found");
      assertThat(refused.summary()).isEqualTo("upgraded 0, refused 2");
      assertThat(memos(changed, waiting.getFirst())).noneMatch(e -> e.startsWith("RunUpgraded"));
    }

    try (Flows patched =
        withWorker(on(db).register(new ReplayCheckTest.ApprovalPatched())).build()) {
      UpgradeReport moved =
          patched.upgrade(ReplayCheckTest.ApprovalPatched.class, UpgradeRuns.fromVersion("1"));
      assertThat(moved.runs()).extracting(UpgradeReport.Run::runId).isEqualTo(waiting);
      assertThat(moved.allUpgraded()).isTrue();
      assertThat(moved.summary()).isEqualTo("upgraded 3, refused 0");
      assertThat(
              patched.upgrade(ReplayCheckTest.ApprovalPatched.class, UpgradeRuns.fromVersion("1")))
          .as("no run is left at version 1")
          .extracting(UpgradeReport::runs)
          .asList()
          .isEmpty();

      for (RunId id : waiting) {
        List<JournalEntry.RunUpgraded> upgrades =
            patched.journal().entries(Boundary.ref(id)).stream()
                .map(e -> e.entry())
                .filter(JournalEntry.RunUpgraded.class::isInstance)
                .map(JournalEntry.RunUpgraded.class::cast)
                .toList();
        assertThat(upgrades)
            .singleElement()
            .satisfies(
                u -> {
                  assertThat(u.fromVersion()).isEqualTo("1");
                  assertThat(u.toVersion()).isEqualTo("2");
                  assertThat(u.by()).isEqualTo(Upgrades.BY);
                });
        RunHandle<JsonNode> h = patched.handle(id);
        h.signal("approve", null);
        assertThat(h.result(WAIT).asText()).isEqualTo("approved");
        assertThat(memos(patched, id))
            .anyMatch(e -> e.contains("load"))
            .noneMatch(e -> e.contains("fraud-check"));
      }
    }
  }

  @Test
  void aBlankFromVersionIsRefusedInvalidInput() {
    assertThatThrownBy(() -> UpgradeRuns.fromVersion(" "))
        .isInstanceOf(FlowsError.class)
        .extracting(e -> ((FlowsError) e).code())
        .isEqualTo("invalid_input");
  }
}
