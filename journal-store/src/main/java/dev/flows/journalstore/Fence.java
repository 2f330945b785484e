package dev.flows.journalstore;

import dev.flows.journalstore.Rows.LiveRow;
import dev.flows.journalstore.Rows.RunRow;
import dev.flows.journalstore.Rows.StepRow;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.StepStatus;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The fence of a worker's verb in a transaction: the attempt a lease names is the live one. The
 * one-statement verbs fence in SQL ({@code flows.lock_live_attempt}); both refuse alike.
 */
final class Fence {
  private final StepSpecCache stepSpecs;

  Fence(StepSpecCache stepSpecs) {
    this.stepSpecs = stepSpecs;
  }

  /** Checks that {@code lease} names the live attempt, holding the step's row lock until commit. */
  StepRow live(Handle h, LeaseToken lease, Instant now) {
    Optional<LiveRow> row =
        TxStatements.query(
                h,
                "step_lock_live",
                q -> TxStatements.bindStep(q, lease.runId(), lease.stepId()),
                Rows.LIVE)
            .stream()
            .findFirst();
    if (row.isEmpty()) {
      // No such step: find out whether the run exists and how it stands.
      RunRow run =
          TxStatements.readRun(h, lease.runId())
              .orElseThrow(() -> Refusals.runNotFound(lease.runId()));
      throw run.status().terminal()
          ? Refusals.terminal(run.runId(), run.status())
          : Refusals.lost(lease);
    }
    if (row.get().runStatus().terminal()) {
      throw Refusals.terminal(lease.runId(), row.get().runStatus());
    }
    StepRow s = row.get().step();
    boolean live =
        s.status() == StepStatus.RUNNING
            && s.attempts() == lease.attempt()
            && lease.leaseId().equals(s.leaseId())
            && Lifecycle.leaseLive(s.leaseDeadline(), now);
    if (!live) {
      throw Refusals.lost(lease);
    }
    stepSpecs.put(s.runId(), s.stepId(), s.spec());
    return s;
  }
}
