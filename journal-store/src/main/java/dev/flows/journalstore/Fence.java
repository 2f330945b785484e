package dev.flows.journalstore;

import dev.flows.journalstore.JournalRows.LiveRow;
import dev.flows.journalstore.JournalRows.StepRow;
import dev.flows.kernel.journal.LeaseToken;
import java.time.Instant;
import org.jdbi.v3.core.Handle;

/**
 * The fence of a worker's verb in a transaction: the attempt a lease names is the live one. The
 * rule, and which refusal answers otherwise, is {@code flows.lock_live_attempt}'s, the fence the
 * one-statement verbs take too; here its outcome becomes the refusal the verb throws.
 */
final class Fence {
  private final StepSpecCache stepSpecs;

  Fence(StepSpecCache stepSpecs) {
    this.stepSpecs = stepSpecs;
  }

  /**
   * Checks that {@code lease} names the live attempt at {@code now}, holding the run's and the
   * step's row locks until commit; answers the step.
   */
  StepRow live(Handle h, LeaseToken lease, Instant now) {
    LiveRow live =
        VerbStatements.query(
                h,
                "step_lock_live",
                q -> VerbStatements.fence(q, lease).bind("now", now.toString()),
                JournalRows.LIVE)
            .getFirst();
    if (!live.outcome().equals("ok") || live.step().isEmpty()) {
      throw Refusals.fromOutcome(live.outcome(), lease, live.runStatus());
    }
    StepRow s = live.step().get();
    stepSpecs.put(s.runId(), s.stepId(), s.spec());
    return s;
  }
}
