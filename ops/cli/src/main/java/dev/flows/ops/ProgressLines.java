package dev.flows.ops;

import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import java.util.function.UnaryOperator;

/**
 * One human line per journal entry: the progress of {@code run}, {@code demo} and {@code runs
 * watch}. Steps are named by their {@link StepLabel} (what the author wrote), payloads shown by
 * {@link Payloads} (folded unless {@code full}).
 */
final class ProgressLines {
  /** Labels steps of one run by id ({@link StepLabel#of}). */
  private final UnaryOperator<String> label;

  private final boolean full;

  ProgressLines(UnaryOperator<String> label, boolean full) {
    this.label = label;
    this.full = full;
  }

  /** The label of step {@code stepId}. */
  String label(String stepId) {
    return label.apply(stepId);
  }

  /** The line of {@code rec}: its time, then what happened. */
  String line(JournalRecord rec) {
    String text =
        switch (rec.entry()) {
          case JournalEntry.RunSpawned e -> spawned(e);
          case JournalEntry.RunCancelRequested e -> "cancel requested: " + e.reason();
          case JournalEntry.RunCompleted e ->
              "run completed: "
                  + e.reason().wire()
                  + e.failedStepId().map(s -> " (failed step " + label.apply(s) + ")").orElse("");
          case JournalEntry.RunResumed e -> "run resumed by " + e.by();
          case JournalEntry.RunUpgraded e ->
              "run upgraded from version "
                  + e.fromVersion()
                  + " to "
                  + e.toVersion()
                  + " by "
                  + e.by();
          case JournalEntry.StepAttemptStarted e -> started(e);
          case JournalEntry.StepCompleted e -> completed(e);
          case JournalEntry.EffectRecorded e ->
              effect(e.stepId(), "recorded", e.surfacePath(), e.idempotencyKey())
                  + (e.takenOver() ? " (taken over from a dead attempt)" : "");
          case JournalEntry.EffectConfirmed e ->
              effect(e.stepId(), "confirmed", e.surfacePath(), e.idempotencyKey());
          case JournalEntry.StepResolved e ->
              label.apply(e.stepId())
                  + " resolved by "
                  + e.by()
                  + (e.performed() ? ": performed" : ": not performed, it runs again");
          case JournalEntry.StepAnswered e ->
              label.apply(e.stepId())
                  + " answered by "
                  + e.by()
                  + ": "
                  + Payloads.oneLine(e.responses(), full)
                  + "; the call is sent again";
          case JournalEntry.EffectTask e -> task(e);
          case JournalEntry.EffectTaskCancel e ->
              label.apply(e.stepId())
                  + " task "
                  + e.taskId()
                  + " cancel sent by "
                  + e.by()
                  + ": "
                  + e.reason();
        };
    return rec.at() + "  " + text;
  }

  private static String spawned(JournalEntry.RunSpawned e) {
    return "run "
        + e.runId().value()
        + " started"
        + e.parentRunId().map(p -> " (child of " + p.value() + ")").orElse("")
        + " by "
        + e.createdBy();
  }

  private String started(JournalEntry.StepAttemptStarted e) {
    return label.apply(e.stepId())
        + " started (attempt "
        + e.attempt()
        + ", worker "
        + e.workerId().value()
        + ", lease "
        + e.leaseId()
        + " until "
        + e.leaseDeadline()
        + ")";
  }

  private String effect(String stepId, String what, String surfacePath, String key) {
    return label.apply(stepId)
        + " effect "
        + what
        + " "
        + surfacePath
        + " key "
        + RunText.shortKey(key);
  }

  private String task(JournalEntry.EffectTask e) {
    return label.apply(e.stepId())
        + " task "
        + e.task().taskId()
        + " "
        + e.task().status()
        + e.task().statusMessage().map(m -> ": " + Database.oneLine(RunText.clip(m))).orElse("");
  }

  private String completed(JournalEntry.StepCompleted e) {
    StringBuilder b = new StringBuilder(label.apply(e.stepId()));
    switch (e.disposition()) {
      case STEP_DONE ->
          b.append(
              e.reason() == CompletionReason.SUCCESS
                  ? " completed"
                  : " failed: " + e.reason().wire());
      case RETRY ->
          b.append(" retrying after ")
              .append(e.reason().wire())
              .append(e.nextAttemptAt().map(t -> " at " + t).orElse(""));
      case PARK -> b.append(" parked: ").append(e.reason().wire());
    }
    b.append(" (attempt ").append(e.attempt()).append(')');
    e.output()
        .filter(RunJson::isReceipt)
        .ifPresent(r -> b.append("; receipt ").append(RunText.receiptText(r, full)));
    e.trajectoryTail()
        .map(t -> t.has("diagnostic") ? t.get("diagnostic") : t)
        .ifPresent(
            d -> b.append("; diagnostic ").append(Database.oneLine(Payloads.oneLine(d, full))));
    return b.toString();
  }
}
