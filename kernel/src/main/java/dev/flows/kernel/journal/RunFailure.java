package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.lifecycle.RunStatus;
import java.util.List;
import java.util.Optional;

/**
 * Why a failed run failed, the one rule every reader uses (the embedding API's exception, {@code
 * runs show}, the console): the failing step is the one the run's last {@code run.completed} names
 * (not the first step listed as failed: steps side by side can fail after the run did), and the
 * failing attempt is that step's last attempt that did not succeed. A run that failed without
 * naming a step (an operator's fail) takes the last attempt of any step that did not succeed.
 *
 * @param reason why the run completed
 * @param stepId the failing step, when there is one
 * @param attempt the failing attempt's {@code step.completed}, when there is one
 */
public record RunFailure(
    RunCompletionReason reason,
    Optional<String> stepId,
    Optional<JournalEntry.StepCompleted> attempt) {

  /** The failure of {@code run}, whose journal is {@code entries}; empty unless it failed. */
  public static Optional<RunFailure> of(RunSnapshot run, List<JournalRecord> entries) {
    if (run.status() != RunStatus.FAILED) {
      return Optional.empty();
    }
    Optional<String> named = namedStep(entries);
    Optional<JournalEntry.StepCompleted> failing = Optional.empty();
    for (JournalRecord rec : entries) {
      if (rec.entry() instanceof JournalEntry.StepCompleted c
          && named.map(c.stepId()::equals).orElse(true)
          && c.reason() != CompletionReason.SUCCESS) {
        failing = Optional.of(c);
      }
    }
    Optional<JournalEntry.StepCompleted> last = failing;
    return Optional.of(
        new RunFailure(
            run.completionReason().orElse(RunCompletionReason.STEP_FAILED),
            named.or(() -> last.map(JournalEntry.StepCompleted::stepId)),
            last));
  }

  private static Optional<String> namedStep(List<JournalRecord> entries) {
    Optional<String> named = Optional.empty();
    for (JournalRecord rec : entries) {
      if (rec.entry() instanceof JournalEntry.RunCompleted c) {
        named = c.failedStepId();
      }
    }
    return named;
  }

  /** The failing attempt's trajectory tail, or an empty object when it left none. */
  public JsonNode tail() {
    return attempt
        .flatMap(JournalEntry.StepCompleted::trajectoryTail)
        .orElseGet(JsonNodeFactory.instance::objectNode);
  }
}
