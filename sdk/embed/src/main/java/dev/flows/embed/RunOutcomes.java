package dev.flows.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunFailure;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.runtime.Lowering;
import java.util.List;
import java.util.Optional;

/**
 * How a run's end reads to a caller waiting for its result, derived from the journal: the body's
 * output, or the typed exception with the failed or parked step and its trajectory tail.
 */
final class RunOutcomes {
  /** A parked body names the child it waits on; children park themselves, never deeper. */
  private static final int MAX_PARK_DEPTH = 16;

  private RunOutcomes() {}

  /** The body's output (JSON null when it returned null). */
  static JsonNode output(RunSnapshot run) {
    return rootStep(run)
        .flatMap(StepSnapshot::output)
        .orElseGet(JsonNodeFactory.instance::nullNode);
  }

  /** The exception for a run that is failed, parked or canceled. */
  static RunNotSucceededException notSucceeded(Journal journal, RunSnapshot run) {
    return switch (run.status()) {
      case FAILED -> failed(journal, run);
      case PARKED -> parked(journal, run);
      case CANCELED -> canceled(journal, run);
      case RUNNING, SUCCEEDED ->
          throw new IllegalArgumentException("run " + run.runId() + " is " + run.status().wire());
    };
  }

  private static RunFailedException failed(Journal journal, RunSnapshot run) {
    RunFailure failure =
        RunFailure.of(run, journal.entries(run.runId()))
            .orElseThrow(() -> new IllegalArgumentException("run " + run.runId() + " not failed"));
    JsonNode tail = failure.tail();
    ErrorCode code = code(tail).orElse(ErrorCode.FLOW_FAILED);
    String message =
        "run "
            + run.runId().value()
            + " failed ("
            + failure.reason().wire()
            + "): "
            + tail.path("message").asText(code.wire());
    return new RunFailedException(
        code, message, run.runId(), failure.reason(), failure.stepId(), tail);
  }

  private static RunParkedException parked(Journal journal, RunSnapshot root) {
    RunSnapshot run = root;
    for (int depth = 0; ; depth++) {
      String step =
          run.steps().stream()
              .filter(s -> s.status() == StepStatus.PARKED)
              .map(StepSnapshot::stepId)
              .findFirst()
              .orElse(Lowering.ROOT_STEP);
      JsonNode tail = lastTail(journal.entries(run.runId()), Optional.of(step));
      Optional<RunSnapshot> child =
          tail.hasNonNull("parkedChild") && depth < MAX_PARK_DEPTH
              ? journal.run(new RunRef(tail.path("parkedChild").asText()))
              : Optional.empty();
      if (child.isPresent()) {
        run = child.get();
        continue;
      }
      ErrorCode code = code(tail).orElse(ErrorCode.EFFECT_OUTCOME_UNKNOWN);
      String message =
          "run "
              + root.runId().value()
              + " is parked at run "
              + run.runId().value()
              + " step "
              + step
              + ": "
              + tail.path("message").asText(code.wire());
      return new RunParkedException(code, message, root.runId(), run.runId(), step, tail);
    }
  }

  private static RunCanceledException canceled(Journal journal, RunSnapshot run) {
    String reason = "canceled";
    for (JournalRecord r : journal.entries(run.runId())) {
      if (r.entry() instanceof JournalEntry.RunCancelRequested c) {
        reason = c.reason();
      }
    }
    return new RunCanceledException(run.runId(), reason);
  }

  /** The trajectory tail of the last attempt of {@code step} (any step when empty) that has one. */
  private static JsonNode lastTail(List<JournalRecord> entries, Optional<String> step) {
    JsonNode tail = JsonNodeFactory.instance.objectNode();
    for (JournalRecord r : entries) {
      if (r.entry() instanceof JournalEntry.StepCompleted c
          && c.trajectoryTail().isPresent()
          && step.map(c.stepId()::equals).orElse(true)) {
        tail = c.trajectoryTail().get();
      }
    }
    return tail;
  }

  private static Optional<ErrorCode> code(JsonNode tail) {
    return ErrorCode.fromWire(tail.path("diagnostic").asText(""));
  }

  private static Optional<StepSnapshot> rootStep(RunSnapshot run) {
    return run.step(Lowering.ROOT_STEP).or(() -> run.steps().stream().findFirst());
  }
}
