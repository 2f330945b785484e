package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.lifecycle.RunStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One run as the journal sees it now. {@code waitingReason}: why a ready step of the run is not
 * being claimed, as a worker that could not take it noted ({@link Journal#noteUnaccepted}); empty
 * once a worker claims it.
 */
public record RunSnapshot(
    RunRef runId,
    String name,
    RunStatus status,
    Optional<RunRef> parentRunId,
    String admissionKey,
    JsonNode spec,
    String specHash,
    Instant createdAt,
    Optional<Instant> completedAt,
    Optional<RunCompletionReason> completionReason,
    List<StepSnapshot> steps,
    Optional<RunRef> rerunOf,
    String queue,
    Optional<String> waitingReason) {
  public RunSnapshot {
    steps = List.copyOf(steps);
  }

  public Optional<StepSnapshot> step(String id) {
    return steps.stream().filter(s -> s.stepId().equals(id)).findFirst();
  }
}
