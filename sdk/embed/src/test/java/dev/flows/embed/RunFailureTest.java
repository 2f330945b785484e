package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunCompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.StepKind;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunFailureTest {
  private static final RunRef RUN = new RunRef("run_two_failures");
  private static final Instant T = Instant.parse("2026-12-01T00:00:00Z");

  /**
   * Steps {@code a} and {@code b} ran side by side; {@code b} failed first and failed the run, then
   * {@code a} failed too. The run failed because of {@code b}, though {@code a} is listed first.
   */
  static RunSnapshot run() {
    return new RunSnapshot(
        RUN,
        "parallel",
        RunStatus.FAILED,
        Optional.empty(),
        "key",
        JsonNodeFactory.instance.objectNode(),
        "h",
        T,
        Optional.of(T),
        Optional.of(RunCompletionReason.STEP_FAILED),
        List.of(failedStep("a"), failedStep("b")),
        Optional.empty(),
        "default",
        Optional.empty());
  }

  static List<JournalRecord> entries() {
    return List.of(
        new JournalRecord(1, T, failed("b", "b broke")),
        new JournalRecord(
            2,
            T,
            new JournalEntry.RunCompleted(RUN, RunCompletionReason.STEP_FAILED, Optional.of("b"))),
        new JournalRecord(3, T, failed("a", "a broke after the run failed")));
  }

  static Journal journal() {
    return (Journal)
        Proxy.newProxyInstance(
            Journal.class.getClassLoader(),
            new Class<?>[] {Journal.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "entries" -> entries();
                  case "run" -> Optional.of(run());
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  private static StepSnapshot failedStep(String id) {
    return new StepSnapshot(
        id,
        StepKind.AGENT,
        StepStatus.FAILED,
        1,
        T,
        Optional.of(CompletionReason.WORKER_ERROR),
        Optional.empty());
  }

  private static JournalEntry.StepCompleted failed(String step, String message) {
    ObjectNode tail = JsonNodeFactory.instance.objectNode().put("message", message);
    return new JournalEntry.StepCompleted(
        RUN,
        step,
        1,
        CompletionReason.WORKER_ERROR,
        Disposition.STEP_DONE,
        Optional.empty(),
        List.of(),
        Optional.of(tail),
        Optional.empty());
  }

  @Test
  void aRunWhoseFirstListedFailedStepDidNotFailItNamesTheStepThatDid() {
    RunFailedException e = (RunFailedException) RunOutcomes.notSucceeded(journal(), run());
    assertThat(e.stepId()).contains("b");
    assertThat(e.diagnostic().path("message").asText()).isEqualTo("b broke");
    assertThat(e.getMessage()).contains("b broke");
  }
}
