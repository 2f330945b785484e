package dev.flows.journalstore;

import dev.flows.journalstore.JournalRows.ElectionRow;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.journal.DurableTasks;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.TaskNote;
import dev.flows.kernel.journal.TaskToCancel;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Task-backed calls ({@link DurableTasks}): each note is journaled and kept in {@code
 * flows.mcp_task_state} (the step's task as its entries tell it) in one transaction, decided
 * against that row under its lock.
 */
final class TaskVerbs {
  private final JournalDb db;
  private final Fence fence;

  TaskVerbs(JournalDb db, Fence fence) {
    this.db = db;
    this.fence = fence;
  }

  boolean recordTask(LeaseToken lease, String surfacePath, TaskNote task) {
    return db.tx(
        h -> {
          Instant now = db.now(h);
          fence.live(h, lease, now);
          Optional<ElectionRow> election = VerbStatements.lockElection(h, lease, surfacePath);
          if (election.isEmpty() || election.get().attempt() != lease.attempt()) {
            throw Refusals.notRecorded(lease, surfacePath);
          }
          if (!DurableTasks.changes(lock(h, lease.runId(), lease.stepId()), task, lease.place())) {
            return false;
          }
          String key = election.get().idempotencyKey();
          VerbStatements.bindStep(
                  h.createUpdate(Sql.text("task_state_note")), lease.runId(), lease.stepId())
              .bind("surfacePath", surfacePath)
              .bind("idempotencyKey", key)
              .bind("taskId", task.taskId())
              .bind("status", task.status())
              .bind("statusMessage", task.statusMessage().orElse(null))
              .bind("pollIntervalMs", task.pollIntervalMs().orElse(null))
              .bind("ttlMs", task.ttlMs().orElse(null))
              .bind("protocolVersion", task.protocolVersion())
              .bind("attempt", lease.attempt())
              .bind("now", now.toString())
              .execute();
          VerbStatements.append(
              h,
              now,
              new JournalEntry.EffectTask(
                  lease.runId(), lease.stepId(), lease.attempt(), surfacePath, key, task));
          return true;
        });
  }

  boolean noteTaskCancel(RunRef runId, String stepId, String taskId, String reason, String by) {
    return db.tx(
        h -> {
          Instant now = db.now(h);
          VerbStatements.readRun(h, runId).orElseThrow(() -> Refusals.runNotFound(runId));
          if (VerbStatements.steps(h, runId).stream().noneMatch(s -> s.stepId().equals(stepId))) {
            throw new NotFoundException(
                ErrorCode.STEP_NOT_FOUND, "run " + runId + " has no step " + stepId, stepId);
          }
          Optional<DurableTasks.StepTask> current = lock(h, runId, stepId);
          if (!DurableTasks.cancelChanges(current, taskId, runId.value() + "/" + stepId)) {
            return false;
          }
          VerbStatements.expectOne(
              VerbStatements.bindStep(h.createUpdate(Sql.text("task_state_cancel")), runId, stepId)
                  .bind("reason", reason)
                  .bind("now", now.toString())
                  .execute(),
              "cancel note of " + taskId);
          VerbStatements.append(
              h,
              now,
              new JournalEntry.EffectTaskCancel(
                  runId, stepId, current.get().surfacePath(), taskId, reason, by));
          return true;
        });
  }

  List<TaskToCancel> tasksToCancel(int limit) {
    return db.tx(
        h ->
            VerbStatements.query(
                h,
                "tasks_to_cancel",
                q -> q.bind("limit", Math.max(0, limit)),
                (rs, ctx) ->
                    new TaskToCancel(
                        new RunRef(rs.getString("run_id")),
                        rs.getString("step_id"),
                        rs.getString("surface_path"),
                        rs.getString("task_id"),
                        rs.getString("protocol_version"))));
  }

  /** The step's task row, locked until commit; empty when the step has no task. */
  private static Optional<DurableTasks.StepTask> lock(Handle h, RunRef runId, String stepId) {
    return taskRow(h, "task_state_lock", runId, stepId);
  }

  /**
   * The step's task row, not locked (an expiry reads it under the step's lock, which a new note
   * needs too); empty when the step has no task.
   */
  static Optional<DurableTasks.StepTask> read(Handle h, RunRef runId, String stepId) {
    return taskRow(h, "task_state_read", runId, stepId);
  }

  private static Optional<DurableTasks.StepTask> taskRow(
      Handle h, String statement, RunRef runId, String stepId) {
    return VerbStatements.query(
            h,
            statement,
            q -> q.bind("runId", runId.value()).bind("stepId", stepId),
            (rs, ctx) -> row(rs))
        .stream()
        .findFirst();
  }

  private static DurableTasks.StepTask row(ResultSet rs) throws SQLException {
    return new DurableTasks.StepTask(
        rs.getString("surface_path"),
        rs.getString("idempotency_key"),
        new TaskNote(
            rs.getString("task_id"),
            rs.getString("status"),
            Optional.ofNullable(rs.getString("status_message")),
            optionalLong(rs, "poll_interval_ms"),
            optionalLong(rs, "ttl_ms"),
            rs.getString("protocol_version")),
        JournalRows.instant(rs, "created_at"),
        rs.getInt("created_attempt"),
        JournalRows.instant(rs, "updated_at"),
        Optional.ofNullable(JournalRows.instant(rs, "cancel_sent_at")),
        Optional.ofNullable(rs.getString("cancel_reason")));
  }

  private static Optional<Long> optionalLong(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? Optional.empty() : Optional.of(v);
  }
}
