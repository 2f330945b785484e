package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.LeaseConflictException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.TransitionLog;
import dev.flows.kernel.spec.StepSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the in-memory journal holds: runs with their steps and effect elections, the admission keys,
 * and the journal itself. Read and changed only under {@link MemoryWakeups#locked}.
 */
final class MemoryState {
  final Map<RunRef, RunRow> runs = new LinkedHashMap<>();
  final Map<String, RunRef> byAdmissionKey = new HashMap<>();
  // Every transition this journal takes is checked and counted here.
  final TransitionLog transitions = new TransitionLog();
  // Every signal sent, in the order sent.
  final List<SignalRow> signals = new ArrayList<>();
  private final List<JournalRecord> entries = new ArrayList<>();
  private final MemoryWakeups wakeups;

  /** The partial text of running model turns, forgotten when their run ends. */
  final MemoryLiveText live;

  private long seq;
  private long stepOrder;

  /** The payloads this journal takes: run inputs, signals, answers, resolved outputs. */
  final PayloadLimits limits;

  MemoryState(MemoryWakeups wakeups, PayloadLimits limits) {
    this.wakeups = wakeups;
    this.limits = limits;
    this.live = new MemoryLiveText(wakeups, this);
  }

  static final class RunRow {
    RunRef id;
    String name = "";
    RunStatus status;
    Optional<RunRef> parent = Optional.empty();
    Optional<RunRef> rerunOf = Optional.empty();
    String queue = Queues.DEFAULT;
    String admissionKey;
    JsonNode specJson = NullNode.getInstance();
    String specHash = "";
    Instant createdAt;
    Instant completedAt;
    RunCompletionReason completionReason;
    // A parent's attempt suspended on this run: its leaving `running` wakes the parent.
    boolean wakesParent;
    final Map<String, StepRow> steps = new LinkedHashMap<>();
  }

  static final class StepRow {
    StepSpec spec;
    StepStatus status;
    int attempts;
    String leaseId;
    Instant leaseDeadline;
    long leaseMs;
    WorkerId worker;
    Instant notBefore;
    CompletionReason lastReason;
    // Attempts given back (AttemptEnd.usesIteration false): they do not count against
    // maxIterations.
    int suspensions;
    JsonNode output;
    long order;
    // Why the step waits, as a worker that could not take it noted at `noteAttempts` attempts.
    String note;
    int noteAttempts;
    final Map<String, Election> elections = new LinkedHashMap<>();

    void clearLease() {
      leaseId = null;
      leaseDeadline = null;
      worker = null;
    }
  }

  static final class SignalRow {
    RunRef runId;
    String name;
    long seq;
    JsonNode payload;
    Optional<String> key;
    Instant sentAt;
    // Where it was delivered (null while pending).
    String deliveredTo;
  }

  static final class Election {
    int attempt;
    String key;
    boolean confirmed;
    JsonNode output;
  }

  /** A new step row of a run being admitted, in admission order across all runs. */
  StepRow newStep(StepSpec spec, Instant now) {
    StepRow step = new StepRow();
    step.spec = spec;
    step.status = Lifecycle.created(spec);
    step.notBefore = now;
    step.order = stepOrder++;
    return step;
  }

  void append(Instant at, JournalEntry e) {
    entries.add(new JournalRecord(++seq, at, e));
    wakeups.changed(e.runId());
  }

  long countEntries(java.util.Set<RunRef> runIds) {
    return entries.stream().filter(e -> runIds.contains(e.entry().runId())).count();
  }

  /**
   * Removes runs with their steps, elections, signals and journal entries; answers the entries
   * removed.
   */
  long removeRuns(java.util.Set<RunRef> runIds) {
    long before = entries.size();
    entries.removeIf(e -> runIds.contains(e.entry().runId()));
    signals.removeIf(sig -> runIds.contains(sig.runId));
    for (RunRef id : runIds) {
      RunRow r = runs.remove(id);
      live.forget(id);
      if (r != null) {
        byAdmissionKey.remove(r.admissionKey, id);
      }
    }
    return before - entries.size();
  }

  List<JournalRecord> entries(RunRef runId) {
    return entries.stream().filter(e -> e.entry().runId().equals(runId)).toList();
  }

  RunRow existing(RunRef runId) {
    RunRow run = runs.get(runId);
    if (run == null) {
      throw new NotFoundException(ErrorCode.RUN_NOT_FOUND, "no run " + runId, runId.value());
    }
    return run;
  }

  /** The fence: the attempt named by the token is the live one, and its deadline is ahead. */
  StepRow live(LeaseToken t, Instant now) {
    RunRow run = existing(t.runId());
    if (run.status.terminal()) {
      throw new RunTerminalException(
          "run " + run.id + " is already " + run.status.wire(), run.id.value());
    }
    StepRow step = run.steps.get(t.stepId());
    if (step == null
        || step.status != StepStatus.RUNNING
        || step.attempts != t.attempt()
        || !t.leaseId().equals(step.leaseId)
        || !Lifecycle.leaseLive(step.leaseDeadline, now)) {
      throw new LeaseConflictException("attempt does not hold a live lease", t.place());
    }
    return step;
  }

  RunSnapshot snapshot(RunRow r) {
    List<StepSnapshot> steps = new ArrayList<>();
    for (StepRow s : r.steps.values()) {
      steps.add(
          new StepSnapshot(
              s.spec.id(),
              s.spec.kind(),
              s.status,
              s.attempts,
              s.notBefore,
              Optional.ofNullable(s.lastReason),
              Optional.ofNullable(s.output).map(JsonNode::deepCopy)));
    }
    return new RunSnapshot(
        r.id,
        r.name,
        r.status,
        r.parent,
        r.admissionKey,
        r.specJson.deepCopy(),
        r.specHash,
        r.createdAt,
        Optional.ofNullable(r.completedAt),
        Optional.ofNullable(r.completionReason),
        steps,
        r.rerunOf,
        r.queue,
        r.steps.values().stream()
            .filter(s -> s.note != null && s.status == StepStatus.READY)
            .filter(s -> s.noteAttempts == s.attempts)
            .map(s -> s.note)
            .findFirst());
  }
}
