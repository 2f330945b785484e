package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.MemoryState.RunRow;
import dev.flows.kernel.journal.MemoryState.SignalRow;
import dev.flows.kernel.journal.MemoryState.StepRow;
import dev.flows.kernel.lifecycle.StepStatus;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/** The in-memory journal's signal mailboxes. Called under the journal's lock. */
final class MemorySignals {
  private final MemoryState state;
  private final MemoryWakeups wakeups;
  private final MemoryAttempts attempts;

  MemorySignals(MemoryState state, MemoryWakeups wakeups, MemoryAttempts attempts) {
    this.state = state;
    this.wakeups = wakeups;
    this.attempts = attempts;
  }

  SignalSent send(RunRef runId, String name, JsonNode payload, Optional<String> key, Instant now) {
    Signals.check(name, key);
    state.limits.requireSignal(name, payload);
    RunRow run = state.existing(runId);
    // A keyed signal sent before is answered whatever the run's state: a retry after the run
    // ended (the signal taken, the body done) is the same request, already done.
    if (key.isPresent()) {
      for (SignalRow s : state.signals) {
        if (s.runId.equals(runId) && s.key.equals(key)) {
          return new SignalSent(runId, s.name, s.seq, true);
        }
      }
    }
    if (run.status.terminal()) {
      throw Signals.ended(runId, run.status);
    }
    SignalRow row = new SignalRow();
    row.runId = runId;
    row.name = name;
    row.seq =
        1
            + state.signals.stream()
                .filter(s -> s.runId.equals(runId) && s.name.equals(name))
                .count();
    row.payload = payload.deepCopy();
    row.key = key;
    row.sentAt = now;
    state.signals.add(row);
    wakeSuspended(run, now);
    wakeups.changed(runId);
    return new SignalSent(runId, name, row.seq, false);
  }

  Optional<JsonNode> take(LeaseToken lease, String name, String surfacePath, Instant now) {
    StepRow step = state.live(lease, now);
    MemoryState.Election done = step.elections.get(surfacePath);
    if (done != null && done.confirmed) {
      return Optional.ofNullable(done.output).map(JsonNode::deepCopy);
    }
    Optional<SignalRow> next = pending(lease.runId(), Set.of(name));
    if (next.isEmpty()) {
      return Optional.empty();
    }
    JsonNode output = Signals.delivered(name, next.get().seq, next.get().payload);
    // Elected first: a refusal (an undeclared surface) leaves the signal pending.
    attempts.recordConfirmedEffect(lease, surfacePath, Optional.of(output), now);
    next.get().deliveredTo = lease.stepId() + "#" + lease.attempt() + " " + surfacePath;
    return Optional.of(output.deepCopy());
  }

  /** The oldest signal for {@code runId} named one of {@code names} not yet delivered. */
  Optional<SignalRow> pending(RunRef runId, Set<String> names) {
    return state.signals.stream()
        .filter(s -> s.runId.equals(runId) && names.contains(s.name) && s.deliveredTo == null)
        .findFirst();
  }

  /** A suspended body of the run looks again now: a signal may be what it waits for. */
  private void wakeSuspended(RunRow run, Instant now) {
    for (StepRow s : run.steps.values()) {
      if (s.status == StepStatus.READY
          && s.lastReason == CompletionReason.SUSPENDED
          && s.notBefore.isAfter(now)) {
        s.notBefore = now;
        wakeups.wake();
      }
    }
  }
}
