package dev.flows.kernel.journal;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.journal.MemoryState.RunRow;
import dev.flows.kernel.journal.MemoryState.StepRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The in-memory journal's task-backed calls ({@link DurableTasks}): a step's task is read from its
 * entries, the statement of what the Postgres journal keeps in {@code flows.mcp_task_state}. Called
 * under the journal's lock.
 */
final class MemoryTasks {
  private final MemoryState state;

  MemoryTasks(MemoryState state) {
    this.state = state;
  }

  boolean recordTask(LeaseToken lease, String surfacePath, TaskNote task, Instant now) {
    StepRow step = state.live(lease, now);
    MemoryAttempts.election(step, lease, surfacePath);
    Optional<DurableTasks.StepTask> current =
        DurableTasks.of(state.entries(lease.runId()), lease.stepId());
    if (!DurableTasks.changes(current, task, lease.place())) {
      return false;
    }
    String key = step.elections.get(surfacePath).key;
    state.append(
        now,
        new JournalEntry.EffectTask(
            lease.runId(), lease.stepId(), lease.attempt(), surfacePath, key, task));
    return true;
  }

  boolean noteTaskCancel(
      RunRef runId, String stepId, String taskId, String reason, String by, Instant now) {
    RunRow run = state.existing(runId);
    if (!run.steps.containsKey(stepId)) {
      throw new NotFoundException(
          ErrorCode.STEP_NOT_FOUND, "run " + runId + " has no step " + stepId, stepId);
    }
    Optional<DurableTasks.StepTask> current = DurableTasks.of(state.entries(runId), stepId);
    if (!DurableTasks.cancelChanges(current, taskId, runId.value() + "/" + stepId)) {
      return false;
    }
    state.append(
        now,
        new JournalEntry.EffectTaskCancel(
            runId, stepId, current.get().surfacePath(), taskId, reason, by));
    return true;
  }

  List<TaskToCancel> tasksToCancel(int limit) {
    record Owed(DurableTasks.StepTask task, TaskToCancel cancel) {}
    List<Owed> owed = new ArrayList<>();
    for (RunRow run : state.runs.values()) {
      if (!run.status.terminal()) {
        continue;
      }
      List<JournalRecord> entries = state.entries(run.id);
      for (StepRow s : run.steps.values()) {
        DurableTasks.of(entries, s.spec.id())
            .filter(DurableTasks.StepTask::liveUncancelled)
            .ifPresent(
                t ->
                    owed.add(
                        new Owed(
                            t,
                            new TaskToCancel(
                                run.id,
                                s.spec.id(),
                                t.surfacePath(),
                                t.latest().taskId(),
                                t.latest().protocolVersion()))));
      }
    }
    return owed.stream()
        .sorted(
            Comparator.comparing((Owed o) -> o.task().createdAt())
                .thenComparing(o -> o.cancel().runId().value())
                .thenComparing(o -> o.cancel().stepId()))
        .limit(Math.max(0, limit))
        .map(Owed::cancel)
        .toList();
  }
}
