package dev.flows.kernel.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AttemptEndTest {
  private static final StepOutcome RETRYABLE =
      new StepOutcome.Failed(CompletionReason.WORKER_ERROR, NullNode.getInstance(), true);

  @Test
  void aRetryableFailureRetriesWhileIterationsAreLeftAndSuspensionsDoNotCount() {
    assertThat(AttemptEnd.reported(RETRYABLE, 2, 0, 3).transition())
        .isEqualTo(StepTransition.COMPLETED_RETRY);
    assertThat(AttemptEnd.reported(RETRYABLE, 3, 0, 3))
        .isEqualTo(
            new AttemptEnd(
                StepTransition.COMPLETED_FAILED,
                CompletionReason.RETRIES_EXHAUSTED,
                Disposition.STEP_DONE));
    assertThat(AttemptEnd.reported(RETRYABLE, 3, 1, 3).disposition()).isEqualTo(Disposition.RETRY);
  }

  @Test
  void aFailureThatIsNotRetryableKeepsItsReasonAndFailsARunningRunOnly() {
    AttemptEnd end =
        AttemptEnd.reported(
            new StepOutcome.Failed(CompletionReason.TIMEOUT, NullNode.getInstance(), false),
            1,
            0,
            5);
    assertThat(end.reason()).isEqualTo(CompletionReason.TIMEOUT);
    assertThat(end.runTransition(RunStatus.RUNNING)).contains(RunTransition.STEP_FAILED);
    assertThat(end.runTransition(RunStatus.PARKED)).isEmpty();
  }

  @Test
  void aParkedAttemptParksARunningRunAndASuspendedOneRetriesWithoutTouchingTheRun() {
    AttemptEnd parked =
        AttemptEnd.reported(
            new StepOutcome.Parked(
                CompletionReason.WORKER_ERROR,
                ErrorCode.EFFECT_OUTCOME_UNKNOWN,
                NullNode.getInstance()),
            1,
            0,
            1);
    assertThat(parked.disposition()).isEqualTo(Disposition.PARK);
    assertThat(parked.runTransition(RunStatus.RUNNING)).contains(RunTransition.STEP_PARKED);
    AttemptEnd suspended =
        AttemptEnd.reported(
            new StepOutcome.Suspended(RunId.random(), Duration.ofSeconds(1)), 9, 0, 1);
    assertThat(suspended.transition()).isEqualTo(StepTransition.SUSPENDED);
    assertThat(suspended.runTransition(RunStatus.RUNNING)).isEmpty();
  }

  @Test
  void anExpiredLeaseRetriesUntilTheIterationsAreUsedUp() {
    assertThat(AttemptEnd.expired(1, 0, 2).transition())
        .isEqualTo(StepTransition.LEASE_EXPIRED_RETRY);
    assertThat(AttemptEnd.expired(2, 0, 2).reason()).isEqualTo(CompletionReason.RETRIES_EXHAUSTED);
    assertThat(AttemptEnd.expired(2, 0, 2).runTransition(RunStatus.RUNNING))
        .contains(RunTransition.STEP_FAILED);
  }

  @Test
  void aSuccessReadiesTheWaitingStepsWhoseDependenciesAllSucceeded() {
    AfterSuccess after =
        AfterSuccess.of(
            RunStatus.RUNNING,
            List.of(
                new AfterSuccess.Step("a", StepStatus.SUCCEEDED, List.of()),
                new AfterSuccess.Step("b", StepStatus.RUNNING, List.of()),
                new AfterSuccess.Step("c", StepStatus.WAITING, List.of("a")),
                new AfterSuccess.Step("d", StepStatus.WAITING, List.of("a", "b"))));
    assertThat(after).isEqualTo(new AfterSuccess(List.of("c"), false));
  }

  @Test
  void aSuccessEndsARunningRunWhenEveryStepSucceeded() {
    List<AfterSuccess.Step> done =
        List.of(
            new AfterSuccess.Step("a", StepStatus.SUCCEEDED, List.of()),
            new AfterSuccess.Step("b", StepStatus.SUCCEEDED, List.of("a")));
    assertThat(AfterSuccess.of(RunStatus.RUNNING, done).runSucceeds()).isTrue();
    assertThat(AfterSuccess.of(RunStatus.PARKED, done).runSucceeds()).isFalse();
    assertThat(Optional.of(AfterSuccess.of(RunStatus.RUNNING, done).readied())).contains(List.of());
  }
}
