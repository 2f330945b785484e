package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.MemoryState.Election;
import dev.flows.kernel.journal.MemoryState.RunRow;
import dev.flows.kernel.journal.MemoryState.StepRow;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import java.time.Instant;
import java.util.Optional;

/**
 * The in-memory journal's operator verbs: resume a run, resolve a parked step, move a run to
 * another version.
 */
final class MemoryOperator {
  private final MemoryState state;
  private final MemoryWakeups wakeups;
  private final MemoryEnds ends;

  MemoryOperator(MemoryState state, MemoryWakeups wakeups, MemoryEnds ends) {
    this.state = state;
    this.wakeups = wakeups;
    this.ends = ends;
  }

  RunSnapshot resumeRun(RunRef runId, String by, Instant now) {
    RunRow run = state.existing(runId);
    resume(run, by, now);
    return state.snapshot(run);
  }

  private void resume(RunRow run, String by, Instant now) {
    switch (run.status) {
      case RUNNING -> {
        return;
      }
      case SUCCEEDED, CANCELED ->
          throw new RunTerminalException(
              "run " + run.id + " is " + run.status.wire() + " and cannot resume", run.id.value());
      case FAILED -> {
        run.status = state.transitions.run(RunTransition.RESUMED, Optional.of(run.status));
        run.completedAt = null;
        run.completionReason = null;
      }
      case PARKED ->
          run.status = state.transitions.run(RunTransition.UNPARKED, Optional.of(run.status));
    }
    for (StepRow s : run.steps.values()) {
      if (s.status == StepStatus.FAILED) {
        s.status = state.transitions.step(StepTransition.RESUMED, s.status);
        s.notBefore = now;
      } else if (s.status == StepStatus.PARKED) {
        s.status = state.transitions.step(StepTransition.RESOLVED, s.status);
        s.notBefore = now;
      }
    }
    state.append(now, new JournalEntry.RunResumed(run.id, by));
    wakeups.wake();
  }

  RunSnapshot upgradeRun(RunRef runId, RunUpgrade upgrade, String by, Instant now) {
    RunRow run = state.existing(runId);
    java.util.List<RunUpgrades.Step> steps =
        run.steps.values().stream()
            .map(s -> new RunUpgrades.Step(s.spec, s.status, s.attempts))
            .toList();
    RunUpgrades.plan(runId, run.status, steps, upgrade, by)
        .ifPresent(
            m -> {
              run.steps.get(m.stepId()).spec = m.spec();
              state.append(now, m.entry());
              wakeups.wake();
            });
    return state.snapshot(run);
  }

  RunSnapshot answerInput(RunRef runId, String stepId, InputAnswer answer, String by, Instant now) {
    RunRow run = state.existing(runId);
    StepRow step = step(run, stepId);
    JsonNode park = DurableInput.requireParked(state.entries(runId), runId, stepId, step.status);
    JsonNode responses =
        DurableInput.responses(runId.value() + "/" + stepId, park, answer, state.limits);
    state.append(now, new JournalEntry.StepAnswered(runId, stepId, responses, by));
    return rerun(run, step, by, now);
  }

  private static StepRow step(RunRow run, String stepId) {
    StepRow step = run.steps.get(stepId);
    if (step == null) {
      throw new NotFoundException(
          ErrorCode.STEP_NOT_FOUND, "run " + run.id + " has no step " + stepId, stepId);
    }
    return step;
  }

  RunSnapshot resolveStep(
      RunRef runId, String stepId, Optional<JsonNode> performed, String by, Instant now) {
    RunRow run = state.existing(runId);
    StepRow step = step(run, stepId);
    if (step.status != StepStatus.PARKED) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "step " + stepId + " is " + step.status.wire() + ", not parked",
          runId.value() + "/" + stepId,
          "only a parked step can be resolved");
    }
    Optional<JsonNode> output =
        performed.map(p -> Resolutions.performedOutput(runId, step.spec, p, state.limits));
    state.append(
        now,
        new JournalEntry.StepResolved(
            runId, stepId, output.isPresent(), output.map(JsonNode::deepCopy), by));
    if (output.isPresent()) {
      for (Election e : step.elections.values()) {
        if (!e.confirmed) {
          e.confirmed = true;
          e.output = output.get().deepCopy();
        }
      }
      step.status = state.transitions.step(StepTransition.RESOLVED_PERFORMED, step.status);
      step.output = output.get().deepCopy();
      step.lastReason = CompletionReason.SUCCESS;
      return settle(run, by, now);
    }
    return rerun(run, step, by, now);
  }

  /** A parked step runs again: its open elections dropped, ready from now. */
  private RunSnapshot rerun(RunRow run, StepRow step, String by, Instant now) {
    step.elections.values().removeIf(e -> !e.confirmed);
    step.status = state.transitions.step(StepTransition.RESOLVED, step.status);
    step.notBefore = now;
    return settle(run, by, now);
  }

  /** After a parked step was resolved or answered: the run unparks, and so does its parent. */
  private RunSnapshot settle(RunRow run, String by, Instant now) {
    if (run.status == RunStatus.PARKED
        && run.steps.values().stream().noneMatch(s -> s.status == StepStatus.PARKED)) {
      run.status = state.transitions.run(RunTransition.UNPARKED, Optional.of(run.status));
    }
    if (run.status == RunStatus.RUNNING) {
      ends.afterSuccess(run, now);
    }
    Optional<RunRow> parent = run.parent.map(state::existing);
    if (parent.isPresent() && Resolutions.wakesParent(run.status, parent.get().status)) {
      resume(parent.get(), by, now);
    }
    wakeups.wake();
    return state.snapshot(run);
  }
}
