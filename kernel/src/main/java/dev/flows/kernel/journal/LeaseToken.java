package dev.flows.kernel.journal;

/**
 * What a worker must present to act for an attempt: every fenced verb (heartbeat, effect record and
 * confirm, complete) is refused unless this names the live attempt and its lease.
 */
public record LeaseToken(RunRef runId, String stepId, int attempt, String leaseId) {
  public String place() {
    return runId.value() + "/" + stepId + "#" + attempt;
  }
}
