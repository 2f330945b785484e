package dev.flows.embed;

import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.SignalSent;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.sdk.RunId;

/**
 * Where the engine's types become the public ones: the public API names no kernel type, so every
 * id, status and snapshot crosses here.
 */
final class Boundary {
  private Boundary() {}

  static RunRef ref(RunId id) {
    return new RunRef(id.value());
  }

  static RunId id(RunRef ref) {
    return new RunId(ref.value());
  }

  static RunState state(RunStatus status) {
    return switch (status) {
      case RUNNING -> RunState.RUNNING;
      case PARKED -> RunState.PARKED;
      case SUCCEEDED -> RunState.SUCCEEDED;
      case FAILED -> RunState.FAILED;
      case CANCELED -> RunState.CANCELED;
    };
  }

  static RunStatus status(RunState state) {
    return switch (state) {
      case RUNNING -> RunStatus.RUNNING;
      case PARKED -> RunStatus.PARKED;
      case SUCCEEDED -> RunStatus.SUCCEEDED;
      case FAILED -> RunStatus.FAILED;
      case CANCELED -> RunStatus.CANCELED;
    };
  }

  static RunInfo info(RunSnapshot s) {
    return new RunInfo(
        id(s.runId()),
        s.name(),
        state(s.status()),
        s.parentRunId().map(Boundary::id),
        s.admissionKey(),
        s.queue(),
        s.createdAt(),
        s.completedAt(),
        s.completionReason().map(r -> r.wire()),
        s.waitingReason());
  }

  static SignalReceipt receipt(SignalSent s) {
    return new SignalReceipt(id(s.runId()), s.name(), s.seq(), s.deduped());
  }
}
