package dev.flows.kernel.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.StepKind;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunFailureTest {
  private static final RunRef RUN = new RunRef("run_f");
  private static final Instant T = Instant.parse("2026-12-01T00:00:00Z");

  private static RunSnapshot run(RunStatus status, String... failedSteps) {
    List<StepSnapshot> steps =
        java.util.Arrays.stream(failedSteps)
            .map(
                id ->
                    new StepSnapshot(
                        id,
                        StepKind.AGENT,
                        StepStatus.FAILED,
                        1,
                        T,
                        Optional.of(CompletionReason.WORKER_ERROR),
                        Optional.empty()))
            .toList();
    return new RunSnapshot(
        RUN,
        "r",
        status,
        Optional.empty(),
        "k",
        JsonNodeFactory.instance.objectNode(),
        "h",
        T,
        Optional.of(T),
        Optional.of(RunCompletionReason.STEP_FAILED),
        steps,
        Optional.empty(),
        "default",
        Optional.empty());
  }

  private static JournalRecord completed(long seq, String step, CompletionReason reason) {
    return new JournalRecord(
        seq,
        T,
        new JournalEntry.StepCompleted(
            RUN,
            step,
            (int) seq,
            reason,
            Disposition.STEP_DONE,
            Optional.empty(),
            List.of(),
            Optional.of(JsonNodeFactory.instance.objectNode().put("message", step + seq)),
            Optional.empty()));
  }

  private static JournalRecord runFailed(long seq, Optional<String> step) {
    return new JournalRecord(
        seq, T, new JournalEntry.RunCompleted(RUN, RunCompletionReason.STEP_FAILED, step));
  }

  @Test
  void theFailingStepIsTheOneTheRunCompletionNamesNotTheFirstListedFailedStep() {
    RunFailure f =
        RunFailure.of(
                run(RunStatus.FAILED, "a", "b"),
                List.of(
                    completed(1, "b", CompletionReason.WORKER_ERROR),
                    runFailed(2, Optional.of("b")),
                    completed(3, "a", CompletionReason.WORKER_ERROR)))
            .orElseThrow();
    assertThat(f.stepId()).contains("b");
    assertThat(f.tail().path("message").asText()).isEqualTo("b1");
  }

  @Test
  void theFailingAttemptIsTheStepsLastAttemptThatDidNotSucceed() {
    RunFailure f =
        RunFailure.of(
                run(RunStatus.FAILED, "a"),
                List.of(
                    completed(1, "a", CompletionReason.WORKER_ERROR),
                    completed(2, "a", CompletionReason.TIMEOUT),
                    runFailed(3, Optional.of("a"))))
            .orElseThrow();
    assertThat(f.attempt().orElseThrow().reason()).isEqualTo(CompletionReason.TIMEOUT);
  }

  @Test
  void aRunFailedWithoutNamingAStepTakesTheLastAttemptThatDidNotSucceed() {
    RunFailure f =
        RunFailure.of(
                run(RunStatus.FAILED),
                List.of(
                    completed(1, "a", CompletionReason.WORKER_ERROR),
                    completed(2, "b", CompletionReason.SUCCESS),
                    runFailed(3, Optional.empty())))
            .orElseThrow();
    assertThat(f.stepId()).contains("a");
  }

  @Test
  void aRunThatDidNotFailHasNoFailure() {
    assertThat(RunFailure.of(run(RunStatus.SUCCEEDED), List.of())).isEmpty();
  }
}
