package dev.flows.kernel.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TransitionLogTest {
  private static InMemoryJournal journal() {
    return new InMemoryJournal(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")));
  }

  @Test
  void aTransitionTakenByOneJournalIsNotCountedForAnother() {
    InMemoryJournal one = journal();
    InMemoryJournal other = journal();
    one.admit(StartRun.of("k", Specs.run(Specs.agent("a"))), Admit.queued());
    assertThat(one.transitions().runCounts()).containsEntry(RunTransition.SPAWNED, 1L);
    assertThat(other.transitions().runCounts()).containsEntry(RunTransition.SPAWNED, 0L);
  }

  @Test
  void aStatementsTransitionsAreCountedPerRowItChanged() {
    TransitionLog log = new TransitionLog();
    log.stepsMade(StepTransition.DEPENDENCIES_MET, StepStatus.WAITING, StepStatus.READY, 3);
    log.runMade(
        RunTransition.ALL_STEPS_SUCCEEDED, Optional.of(RunStatus.RUNNING), RunStatus.SUCCEEDED);
    assertThat(log.stepCounts()).containsEntry(StepTransition.DEPENDENCIES_MET, 3L);
    assertThat(log.runCounts()).containsEntry(RunTransition.ALL_STEPS_SUCCEEDED, 1L);
  }

  @Test
  void aStatementThatWroteAnotherStatusThanTheTableDeclaresIsRefusedAndNotCounted() {
    TransitionLog log = new TransitionLog();
    assertRefused(
        () -> log.stepsMade(StepTransition.CLAIMED, StepStatus.READY, StepStatus.SUCCEEDED, 1));
    assertRefused(
        () -> log.stepsMade(StepTransition.CLAIMED, StepStatus.WAITING, StepStatus.RUNNING, 1));
    assertRefused(() -> log.runMade(RunTransition.SPAWNED, Optional.empty(), RunStatus.CANCELED));
    assertThat(log.stepCounts()).containsEntry(StepTransition.CLAIMED, 0L);
    assertThat(log.runCounts()).containsEntry(RunTransition.SPAWNED, 0L);
  }

  private static void assertRefused(Runnable r) {
    assertThatThrownBy(r::run)
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_TRANSITION));
  }
}
