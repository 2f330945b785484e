package dev.flows.kernel.journal;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.LongStream;

/**
 * Task-backed calls, the same for every journal: the task a server created for a step's call is
 * journaled with the call's effect ({@code effect.task}, by the attempt holding the election)
 * before anything else happens, and again only when its status or status message changes; once
 * flows has sent {@code tasks/cancel} it journals that ({@code effect.task.cancel}). A step has at
 * most one task. {@link #of} folds a step's entries into what is known of its task.
 */
public final class DurableTasks {
  private DurableTasks() {}

  /** The statuses of a task, as MCP names them. */
  public static final Set<String> STATUSES =
      Set.of("working", "input_required", "completed", "failed", "cancelled");

  /** True for completed, failed and cancelled: the task never changes again. */
  public static boolean terminal(String status) {
    return status.equals("completed") || status.equals("failed") || status.equals("cancelled");
  }

  /**
   * A step's task as its entries tell it: the latest note, when and by which attempt it was
   * created, the effect's surface and key, and when flows sent {@code tasks/cancel} (and why).
   */
  public record StepTask(
      String surfacePath,
      String idempotencyKey,
      TaskNote latest,
      Instant createdAt,
      int createdAttempt,
      Instant updatedAt,
      Optional<Instant> cancelSentAt,
      Optional<String> cancelReason) {
    /** Still running on the server, as last seen, and no cancel was sent. */
    public boolean liveUncancelled() {
      return !latest.terminal() && cancelSentAt.isEmpty();
    }

    /**
     * When the task is no longer waited for: its creation plus the shorter of the server's {@code
     * ttlMs} (after which it may forget the task) and the call's own timeout ({@code
     * callTimeoutMs}, the step's {@code timeoutMs}, counted from the task's creation as the worker
     * counts it); empty when neither is known.
     */
    public Optional<Instant> deadline(OptionalLong callTimeoutMs) {
      OptionalLong bound =
          LongStream.concat(
                  latest.ttlMs().stream().mapToLong(Long::longValue), callTimeoutMs.stream())
              .min();
      return bound.isPresent()
          ? Optional.of(createdAt.plusMillis(bound.getAsLong()))
          : Optional.empty();
    }

    /**
     * Whether the call still waits on this task at {@code now}: live and uncancelled, and before
     * its {@link #deadline}. A task with no deadline is not waited on without end.
     */
    public boolean awaitedAt(Instant now, OptionalLong callTimeoutMs) {
      return liveUncancelled() && deadline(callTimeoutMs).filter(now::isBefore).isPresent();
    }
  }

  /** The task of {@code stepId}, folded from a run's entries in order; empty without one. */
  public static Optional<StepTask> of(List<JournalRecord> entries, String stepId) {
    StepTask t = null;
    for (JournalRecord rec : entries) {
      switch (rec.entry()) {
        case JournalEntry.EffectTask e when e.stepId().equals(stepId) ->
            t =
                t == null
                    ? new StepTask(
                        e.surfacePath(),
                        e.idempotencyKey(),
                        e.task(),
                        rec.at(),
                        e.attempt(),
                        rec.at(),
                        Optional.empty(),
                        Optional.empty())
                    : new StepTask(
                        t.surfacePath(),
                        t.idempotencyKey(),
                        e.task(),
                        t.createdAt(),
                        t.createdAttempt(),
                        rec.at(),
                        t.cancelSentAt(),
                        t.cancelReason());
        case JournalEntry.EffectTaskCancel c when c.stepId().equals(stepId) -> {
          if (t != null) {
            t =
                new StepTask(
                    t.surfacePath(),
                    t.idempotencyKey(),
                    t.latest(),
                    t.createdAt(),
                    t.createdAttempt(),
                    t.updatedAt(),
                    Optional.of(rec.at()),
                    Optional.of(c.reason()));
          }
        }
        default -> {}
      }
    }
    return Optional.ofNullable(t);
  }

  /**
   * Whether {@code next} is journaled for a step whose task is {@code current}: the first note, or
   * one whose status or status message differs (polls that see no change write nothing). Refused
   * {@code invalid_input}, before anything is written, for a status MCP does not name, a blank id,
   * or another task than the step's.
   */
  public static boolean changes(Optional<StepTask> current, TaskNote next, String place) {
    if (!STATUSES.contains(next.status())) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "task status " + next.status() + " is not one of " + STATUSES,
          place,
          "journal the status the server reported");
    }
    if (next.taskId().isBlank()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "a task id is not blank",
          place,
          "journal the id the server minted");
    }
    if (current.isEmpty()) {
      return true;
    }
    TaskNote last = current.get().latest();
    if (!last.taskId().equals(next.taskId())) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "the step's call already has task " + last.taskId() + ", not " + next.taskId(),
          place,
          "poll the journaled task instead of creating another");
    }
    return !last.status().equals(next.status())
        || !last.statusMessage().equals(next.statusMessage());
  }

  /**
   * Whether a cancel of {@code taskId} is journaled for a step whose task is {@code current}: not
   * when one was already (writes nothing). Refused {@code invalid_input} when the step has no such
   * task.
   */
  public static boolean cancelChanges(Optional<StepTask> current, String taskId, String place) {
    if (current.isEmpty() || !current.get().latest().taskId().equals(taskId)) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "the step has no task " + taskId,
          place,
          "name the task journaled for the step (flows runs show)");
    }
    return current.get().cancelSentAt().isEmpty();
  }
}
