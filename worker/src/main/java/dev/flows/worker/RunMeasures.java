package dev.flows.worker;

import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.worker.telemetry.FlowsTelemetry;
import dev.flows.worker.telemetry.RunTraces;

/** What a completion adds to the {@code flows.*} metrics. */
final class RunMeasures {
  private RunMeasures() {}

  /**
   * Counts the attempt by its reason and, when it ended its run, the run by flow and status. The
   * flow's name costs a journal read, made only when the metrics are recorded somewhere; the run's
   * span is emitted when telemetry is installed.
   */
  static void completed(
      Journal journal, LeaseToken lease, CompletionAck ack, java.time.Instant now) {
    FlowsTelemetry.metrics().attemptCompleted(ack.reason().wire());
    if (ack.runStatus().terminal() && FlowsTelemetry.measured()) {
      try {
        journal
            .run(lease.runId())
            .ifPresent(
                r -> {
                  FlowsTelemetry.metrics().runEnded(r.name(), ack.runStatus().wire());
                  if (FlowsTelemetry.enabled()) {
                    RunTraces.runEnded(journal, r, now);
                  }
                });
      } catch (RuntimeException e) {
        // A metric is never worth failing a completion the journal already took.
      }
    }
  }
}
