package dev.flows.kernel.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
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
            new StepOutcome.Suspended(RunRef.random(), Duration.ofSeconds(1)), 9, 0, 1);
    assertThat(suspended.transition()).isEqualTo(StepTransition.SUSPENDED);
    assertThat(suspended.runTransition(RunStatus.RUNNING)).isEmpty();
  }

  @Test
  void anExpiredLeaseRetriesUntilTheIterationsAreUsedUp() {
    StepSpec two = Specs.iterations(Specs.agent("a"), 2);
    assertThat(AttemptEnd.expired(1, 0, two, Optional.empty(), T0).transition())
        .isEqualTo(StepTransition.LEASE_EXPIRED_RETRY);
    AttemptEnd last = AttemptEnd.expired(2, 0, two, Optional.empty(), T0);
    assertThat(last.reason()).isEqualTo(CompletionReason.RETRIES_EXHAUSTED);
    assertThat(last.runTransition(RunStatus.RUNNING)).contains(RunTransition.STEP_FAILED);
    assertThat(AttemptEnd.expired(2, 1, two, Optional.empty(), T0).disposition())
        .as("a given-back attempt does not count")
        .isEqualTo(Disposition.RETRY);
  }

  // ---- an effect of unknown outcome when the attempts run out

  @Test
  void anOpenElectionIsAskedForOnlyOnceTheAttemptsRanOutAndParksOnlyAnMcpCallStep() {
    RunRef run = new RunRef("r");
    Supplier<Optional<JournalEntry.EffectRef>> never =
        () -> {
          throw new AssertionError("read while iterations were left");
        };
    assertThat(
            AttemptEnd.reported(RETRYABLE, 1, 0, run, Specs.iterations(CALL, 2), never)
                .disposition())
        .isEqualTo(Disposition.RETRY);
    assertThat(
            AttemptEnd.expired(1, 0, run, Specs.iterations(CALL, 2), Optional.empty(), never, T0)
                .disposition())
        .isEqualTo(Disposition.RETRY);

    JournalEntry.EffectRef open = new JournalEntry.EffectRef("/mcp/jobs/slow", "key");
    AttemptEnd parked = AttemptEnd.reported(RETRYABLE, 1, 0, run, CALL, () -> Optional.of(open));
    assertThat(parked.transition()).isEqualTo(StepTransition.COMPLETED_PARKED);
    assertThat(parked.runTransition(RunStatus.RUNNING)).contains(RunTransition.STEP_PARKED);
    assertThat(parked.tail().orElseThrow().path("diagnostic").asText())
        .isEqualTo("effect_outcome_unknown");
    assertThat(
            AttemptEnd.expired(1, 0, run, CALL, Optional.empty(), () -> Optional.of(open), T0)
                .transition())
        .isEqualTo(StepTransition.LEASE_EXPIRED_PARKED);

    JournalEntry.EffectRef model = new JournalEntry.EffectRef(StepBody.Llm.SURFACE, "key");
    assertThat(AttemptEnd.reported(RETRYABLE, 1, 0, run, Specs.llm("l"), () -> Optional.of(model)))
        .as("a model call changes nothing outside: its step fails as before")
        .isEqualTo(
            new AttemptEnd(
                StepTransition.COMPLETED_FAILED,
                CompletionReason.RETRIES_EXHAUSTED,
                Disposition.STEP_DONE));
    JournalEntry.EffectRef memo = new JournalEntry.EffectRef("/llm/0", "key");
    assertThat(
            AttemptEnd.reported(RETRYABLE, 1, 0, run, Specs.agent("body"), () -> Optional.of(memo)))
        .as("an agent step that is no MCP call (a flow body's open f.llm memo) fails as before")
        .isEqualTo(
            new AttemptEnd(
                StepTransition.COMPLETED_FAILED,
                CompletionReason.RETRIES_EXHAUSTED,
                Disposition.STEP_DONE));
  }

  // ---- an expiry while the step's call waits on a task

  private static final Instant T0 = Instant.parse("2026-07-28T00:00:00Z");
  private static final StepSpec CALL =
      Specs.mcpCall("call", "jobs", "slow", NullNode.getInstance());

  private static DurableTasks.StepTask task(String status, Optional<Long> ttlMs) {
    return new DurableTasks.StepTask(
        "/mcp/jobs/slow",
        "key",
        new TaskNote("t-1", status, Optional.empty(), Optional.empty(), ttlMs, "2026-07-28"),
        T0,
        1,
        T0,
        Optional.empty(),
        Optional.empty());
  }

  private static AttemptEnd expiredAt(
      StepSpec spec, DurableTasks.StepTask task, Duration sinceCreation) {
    return AttemptEnd.expired(
        5, 0, spec, Optional.of(task), T0.plus(sinceCreation)); // iterations long used up
  }

  @Test
  void anAttemptThatExpiresWhileItsTaskWorksWithinItsTtlIsGivenBackAndReadyAtOnce() {
    AttemptEnd end = expiredAt(CALL, task("working", Optional.of(60_000L)), Duration.ofSeconds(59));
    assertThat(end)
        .isEqualTo(
            new AttemptEnd(
                StepTransition.LEASE_EXPIRED_RETRY,
                CompletionReason.LEASE_EXPIRED,
                Disposition.RETRY,
                false));
    Instant now = T0.plusSeconds(59);
    assertThat(end.afterExpiry(now, CALL, new RunRef("r"), "call", 5)).contains(now);
  }

  @Test
  void aTaskThatAsksForInputIsStillLiveForAnExpiry() {
    assertThat(
            expiredAt(CALL, task("input_required", Optional.of(60_000L)), Duration.ofSeconds(1))
                .usesIteration())
        .isFalse();
  }

  @Test
  void anExpiryAtOrPastTheTasksTtlUsesAnIterationAsAnyExpiryDoes() {
    AttemptEnd end = expiredAt(CALL, task("working", Optional.of(60_000L)), Duration.ofSeconds(60));
    assertThat(end.usesIteration()).isTrue();
    assertThat(end.reason()).isEqualTo(CompletionReason.RETRIES_EXHAUSTED);
  }

  @Test
  void theCallsTimeoutBoundsTheTaskWhenItIsShorterThanTheTtlOrTheTaskHasNone() {
    StepSpec timed = Specs.timeout(CALL, Duration.ofSeconds(10));
    assertThat(
            expiredAt(timed, task("working", Optional.of(60_000L)), Duration.ofSeconds(9))
                .usesIteration())
        .isFalse();
    assertThat(
            expiredAt(timed, task("working", Optional.of(60_000L)), Duration.ofSeconds(10))
                .usesIteration())
        .isTrue();
    assertThat(
            expiredAt(timed, task("working", Optional.empty()), Duration.ofSeconds(9))
                .usesIteration())
        .as("no ttl: the call's timeout")
        .isFalse();
    assertThat(
            expiredAt(
                    Specs.timeout(CALL, Duration.ofMinutes(5)),
                    task("working", Optional.of(60_000L)),
                    Duration.ofSeconds(61))
                .usesIteration())
        .as("the ttl is the shorter")
        .isTrue();
  }

  @Test
  void aTaskWithNeitherTtlNorCallTimeoutGivesNoExpiryBackSoAStepAlwaysEnds() {
    assertThat(
            expiredAt(CALL, task("working", Optional.empty()), Duration.ofMillis(1))
                .usesIteration())
        .isTrue();
  }

  @Test
  void anExpiryAfterTheTasksEndOrACancelWasJournaledUsesAnIteration() {
    for (String ended : List.of("completed", "failed", "cancelled")) {
      assertThat(
              expiredAt(CALL, task(ended, Optional.of(60_000L)), Duration.ofSeconds(1))
                  .usesIteration())
          .as(ended)
          .isTrue();
    }
    DurableTasks.StepTask working = task("working", Optional.of(60_000L));
    DurableTasks.StepTask cancelSent =
        new DurableTasks.StepTask(
            working.surfacePath(),
            working.idempotencyKey(),
            working.latest(),
            T0,
            1,
            T0,
            Optional.of(T0),
            Optional.of("the call's timeout passed"));
    assertThat(expiredAt(CALL, cancelSent, Duration.ofSeconds(1)).usesIteration()).isTrue();
  }

  @Test
  void aSuspensionIsGivenBackAndEveryOtherReportedEndUsesAnIteration() {
    assertThat(
            AttemptEnd.reported(StepOutcome.Suspended.timer(Duration.ofSeconds(1)), 1, 0, 1)
                .usesIteration())
        .isFalse();
    assertThat(AttemptEnd.reported(RETRYABLE, 1, 0, 3).usesIteration()).isTrue();
    assertThat(AttemptEnd.canceled().usesIteration()).isTrue();
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
