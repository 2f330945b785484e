package dev.flows.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PrunerTest {
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);

  private RunRef start(String key) {
    return journal
        .admit(StartRun.of(key, Specs.run(Specs.command("s", "true"))), Admit.queued())
        .runId();
  }

  private void succeed(RunRef run) {
    for (ClaimedAttempt a :
        journal.claim(
            new ClaimRequest(
                new WorkerId("w"), Set.of(StepKind.values()), 10, Duration.ofSeconds(30)))) {
      if (a.lease().runId().equals(run)) {
        journal.complete(a.lease(), new StepOutcome.Succeeded(JsonNodeFactory.instance.nullNode()));
      }
    }
  }

  @Test
  void aWorkersPrunerRemovesEveryEndedRunPastThePeriodInBatchesAndLeavesTheRest() {
    List<RunRef> ended = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      RunRef r = start("old-" + i);
      succeed(r);
      ended.add(r);
    }
    RunRef running = start("running");
    clock.advance(Duration.ofDays(3));
    RunRef recent = start("recent");
    succeed(recent);

    try (Pruner p =
        Pruner.start(
            journal,
            new Pruner.Config(Duration.ofDays(2), 2, Duration.ofMillis(20), Duration.ZERO),
            "worker-test")) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> ended.stream().allMatch(r -> journal.run(r).isEmpty()));
    }
    assertThat(journal.run(running)).isPresent();
    assertThat(journal.run(recent)).isPresent();
  }

  @Test
  void aRetentionConfigOfZeroBatchOrNoIntervalIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new Pruner.Config(Duration.ofDays(1), 0, Duration.ofMinutes(1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new Pruner.Config(Duration.ofDays(1), 1, Duration.ZERO, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
