package dev.flows.journalstore;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.LeaseConflictException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.RunStatus;
import java.util.Optional;

/** The refusals the journal's verbs answer, each worded once. */
final class Refusals {
  private Refusals() {}

  static RunTerminalException terminal(RunRef runId, RunStatus status) {
    return new RunTerminalException("run " + runId + " is already " + status.wire(), runId.value());
  }

  static LeaseConflictException lost(LeaseToken lease) {
    return new LeaseConflictException(
        "attempt " + lease.attempt() + " does not hold a live lease " + lease.leaseId(),
        lease.place());
  }

  static NotFoundException runNotFound(RunRef runId) {
    return new NotFoundException(ErrorCode.RUN_NOT_FOUND, "no run " + runId, runId.value());
  }

  static FlowsException notRecorded(LeaseToken lease, String surfacePath) {
    return new FlowsException(
        ErrorCode.EFFECT_NOT_RECORDED,
        "attempt " + lease.attempt() + " holds no election for " + surfacePath,
        lease.place(),
        "record the effect before performing it, then confirm it");
  }

  static FlowsException unconfirmed(LeaseToken lease, String surfacePath) {
    return new FlowsException(
        ErrorCode.EFFECT_UNCONFIRMED,
        "attempt " + lease.attempt() + " holds an unconfirmed election for " + surfacePath,
        lease.place(),
        "confirm the effect before completing with success, or complete as failed");
  }

  static FlowsException anotherUnconfirmed(LeaseToken lease) {
    return new FlowsException(
        ErrorCode.EFFECT_UNCONFIRMED,
        "attempt " + lease.attempt() + " holds another unconfirmed election",
        lease.place(),
        "confirm the effect before completing with success, or complete as failed");
  }

  /**
   * The refusal a one-statement verb answered as an outcome, the way the multi-statement verbs
   * throw it; {@code runStatus} is the run's status the statement read.
   */
  static RuntimeException fromOutcome(
      String outcome, LeaseToken lease, Optional<RunStatus> runStatus) {
    return switch (outcome) {
      case "run_not_found" -> runNotFound(lease.runId());
      case "run_terminal" -> terminal(lease.runId(), runStatus.orElseThrow());
      case "lease_conflict" -> lost(lease);
      default -> new IllegalStateException("a journal function answered " + outcome);
    };
  }
}
