package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.spec.StepKind;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The append-only journal's entry types, a closed set. Each entry's {@link #type()} is its wire
 * name in the {@code flows.journal_entries.entry_type} column; the payload is the record's fields.
 */
public sealed interface JournalEntry {
  RunRef runId();

  String type();

  /**
   * A run was admitted. {@code spec} is the canonical JSON form whose hash is {@code specHash};
   * {@code rerunOf} is the run it was started again from ({@code flows runs rerun}).
   */
  record RunSpawned(
      RunRef runId,
      JsonNode spec,
      String specHash,
      Optional<RunRef> parentRunId,
      String admissionKey,
      String createdBy,
      Optional<RunRef> rerunOf)
      implements JournalEntry {
    public RunSpawned(
        RunRef runId,
        JsonNode spec,
        String specHash,
        Optional<RunRef> parentRunId,
        String admissionKey,
        String createdBy) {
      this(runId, spec, specHash, parentRunId, admissionKey, createdBy, Optional.empty());
    }

    @Override
    public String type() {
      return "run.spawned";
    }
  }

  /** A cancel was asked for; for an unknown run this is the tombstone. */
  record RunCancelRequested(RunRef runId, String reason) implements JournalEntry {
    @Override
    public String type() {
      return "run.cancel.requested";
    }
  }

  /** A worker claimed a step and holds a lease on this attempt until {@code leaseDeadline}. */
  record StepAttemptStarted(
      RunRef runId,
      String stepId,
      int attempt,
      StepKind stepKind,
      String idempotencyKey,
      String leaseId,
      Instant leaseDeadline,
      WorkerId workerId)
      implements JournalEntry {
    @Override
    public String type() {
      return "step.attempt.started";
    }
  }

  /** An attempt ended. {@code output} is present only on success. */
  record StepCompleted(
      RunRef runId,
      String stepId,
      int attempt,
      CompletionReason reason,
      Disposition disposition,
      Optional<JsonNode> output,
      List<EffectRef> effects,
      Optional<JsonNode> trajectoryTail,
      Optional<Instant> nextAttemptAt)
      implements JournalEntry {
    public StepCompleted {
      effects = List.copyOf(effects);
    }

    @Override
    public String type() {
      return "step.completed";
    }
  }

  /**
   * An attempt was elected to perform the effect at {@code surfacePath}. {@code takenOver} is true
   * when it took over an unconfirmed election left by a dead attempt (and so owes the call).
   */
  record EffectRecorded(
      RunRef runId,
      String stepId,
      int attempt,
      String surfacePath,
      String idempotencyKey,
      boolean takenOver)
      implements JournalEntry {
    @Override
    public String type() {
      return "effect.recorded";
    }
  }

  /** The effect was performed; {@code output}, when present, is its journaled result. */
  record EffectConfirmed(
      RunRef runId,
      String stepId,
      int attempt,
      String surfacePath,
      String idempotencyKey,
      Optional<JsonNode> output)
      implements JournalEntry {
    @Override
    public String type() {
      return "effect.confirmed";
    }
  }

  /** The run ended; {@code failedStepId} is present for {@code step_failed}. */
  record RunCompleted(RunRef runId, RunCompletionReason reason, Optional<String> failedStepId)
      implements JournalEntry {
    @Override
    public String type() {
      return "run.completed";
    }
  }

  /**
   * An operator (or {@code flows runs resume}) sent a failed or parked run back to work: failed and
   * parked steps become ready again.
   */
  record RunResumed(RunRef runId, String by) implements JournalEntry {
    @Override
    public String type() {
      return "run.resumed";
    }
  }

  /**
   * An operator moved a run not ended to another version of its flow ({@code flows runs upgrade},
   * after a replay check found its journal compatible with that version's code): its body replays
   * on {@code toVersion} (route {@code toRoute}) from its next attempt on.
   */
  record RunUpgraded(
      RunRef runId,
      String fromVersion,
      String fromRoute,
      String toVersion,
      String toRoute,
      String by)
      implements JournalEntry {
    @Override
    public String type() {
      return "run.upgraded";
    }
  }

  /**
   * An operator resolved a parked step whose effect outcome was unknown: {@code performed} with its
   * {@code output} (the step succeeds with it), or not performed (the step runs again).
   */
  record StepResolved(
      RunRef runId, String stepId, boolean performed, Optional<JsonNode> output, String by)
      implements JournalEntry {
    @Override
    public String type() {
      return "step.resolved";
    }
  }

  /**
   * A step parked {@code input_required} was answered (by an operator, an application, or the
   * flow's own {@code onInput}): {@code responses} are the {@code inputResponses} its call is
   * re-issued with, keyed as the server keyed its requests; the step runs again.
   */
  record StepAnswered(RunRef runId, String stepId, JsonNode responses, String by)
      implements JournalEntry {
    @Override
    public String type() {
      return "step.answered";
    }
  }

  /**
   * The server answered the attempt's call at {@code surfacePath} with a task (journaled before
   * anything else happens), or the task's status or status message changed since the step's last
   * note. The task is the step's for good: later attempts poll it instead of calling again.
   */
  record EffectTask(
      RunRef runId,
      String stepId,
      int attempt,
      String surfacePath,
      String idempotencyKey,
      TaskNote task)
      implements JournalEntry {
    @Override
    public String type() {
      return "effect.task";
    }
  }

  /**
   * flows sent {@code tasks/cancel} for the step's task {@code taskId}: the call's own timeout
   * passed, or its run ended while the task still ran ({@code reason}).
   */
  record EffectTaskCancel(
      RunRef runId, String stepId, String surfacePath, String taskId, String reason, String by)
      implements JournalEntry {
    @Override
    public String type() {
      return "effect.task.cancel";
    }
  }

  /** An effect named in a step completion. */
  record EffectRef(String surfacePath, String idempotencyKey) {}
}
