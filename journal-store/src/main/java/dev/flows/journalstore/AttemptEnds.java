package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.JournalRows.ElectionRow;
import dev.flows.journalstore.JournalRows.RunRow;
import dev.flows.journalstore.JournalRows.StepRow;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.AttemptEnd;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalEntry.EffectRef;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.lifecycle.RunStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * An attempt ended by its worker with failure, park or suspension, in one transaction: the end is
 * the kernel's ({@link AttemptEnd#reported}), its run consequence {@link RunEnds#afterAttempt}'s. A
 * success is one statement of its own ({@link StoredFunctionVerbs}).
 */
final class AttemptEnds {
  private final JournalDb db;
  private final Fence fence;
  private final AttemptVerbs verbs;

  AttemptEnds(JournalDb db, Fence fence, AttemptVerbs verbs) {
    this.db = db;
    this.fence = fence;
    this.verbs = verbs;
  }

  CompletionAck complete(LeaseToken lease, StepOutcome outcome) {
    return db.tx(h -> completeIn(h, lease, outcome, db.now(h)));
  }

  /**
   * Confirms the effect and ends the attempt in one transaction (an outcome other than success).
   */
  CompletionAck confirmAndComplete(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, StepOutcome outcome) {
    return db.tx(
        h -> {
          Instant now = db.now(h);
          // The run's lock first, as every verb takes it, before confirm locks the step.
          VerbStatements.lockRun(h, lease.runId())
              .orElseThrow(() -> Refusals.runNotFound(lease.runId()));
          verbs.confirmIn(h, lease, surfacePath, output, now);
          return completeIn(h, lease, outcome, now);
        });
  }

  private CompletionAck completeIn(Handle h, LeaseToken lease, StepOutcome outcome, Instant now) {
    RunRow run =
        VerbStatements.lockRun(h, lease.runId())
            .orElseThrow(() -> Refusals.runNotFound(lease.runId()));
    StepRow s = fence.live(h, lease, now);
    List<EffectRef> confirmed =
        VerbStatements.electionsOf(h, lease).stream()
            .filter(ElectionRow::confirmed)
            .map(e -> new EffectRef(e.surfacePath(), e.idempotencyKey()))
            .toList();
    AttemptEnd end =
        AttemptEnd.reported(
            outcome,
            lease.attempt(),
            s.suspensions(),
            lease.runId(),
            s.spec(),
            () -> VerbStatements.unconfirmedElection(h, lease.runId(), lease.stepId()));
    return switch (outcome) {
      case StepOutcome.Succeeded ok ->
          throw new IllegalStateException("a success is completed by flows.succeed_attempt");
      case StepOutcome.Failed f -> {
        Optional<Instant> next =
            end.disposition() == Disposition.RETRY
                ? Optional.of(
                    AttemptEnd.retryAt(
                        now, s.spec(), lease.runId(), lease.stepId(), lease.attempt()))
                : Optional.empty();
        Optional<JsonNode> tail = end.tail().or(() -> Optional.ofNullable(f.trajectoryTail()));
        yield end(h, run, lease, s, end, next, tail, confirmed, next.isPresent(), now);
      }
      case StepOutcome.Parked p -> {
        Optional<JsonNode> tail = Optional.ofNullable(p.trajectoryTail());
        yield end(h, run, lease, s, end, Optional.empty(), tail, confirmed, false, now);
      }
      case StepOutcome.Suspended w -> {
        boolean settled = false;
        for (RunRef child : w.awaitingInOrder()) {
          settled |= markChild(h, lease, child) != RunStatus.RUNNING;
        }
        settled |= SignalVerbs.pending(h, lease.runId(), w.signals());
        // A child that has left running, or a signal already sent, readies the step at once.
        Optional<Instant> next = Optional.of(settled ? now : now.plus(w.recheckAfter()));
        yield end(h, run, lease, s, end, next, Optional.empty(), confirmed, settled, now);
      }
    };
  }

  /**
   * Marks the child the attempt suspends on (under its row lock) so that its leaving {@code
   * running} readies this step (the trigger {@code runs_wake_suspended_parent}); answers the
   * child's status.
   */
  private static RunStatus markChild(Handle h, LeaseToken lease, RunRef child) {
    return h.createQuery(Sql.text("run_mark_wakes_parent"))
        .bind("childId", child.value())
        .bind("parentId", lease.runId().value())
        .map((rs, ctx) -> RunStatus.fromWire(rs.getString("status")))
        .findOne()
        .orElseThrow(
            () ->
                new FlowsException(
                    ErrorCode.INVALID_INPUT,
                    "run " + child + " is not a child of " + lease.runId(),
                    lease.place(),
                    "suspend only on a child run the body started"));
  }

  /**
   * Writes {@code end}; {@code readyNow}: the step will be claimable again, so claimers are told.
   */
  private CompletionAck end(
      Handle h,
      RunRow run,
      LeaseToken lease,
      StepRow s,
      AttemptEnd end,
      Optional<Instant> next,
      Optional<JsonNode> tail,
      List<EffectRef> confirmed,
      boolean readyNow,
      Instant now) {
    if (!VerbStatements.endFenced(db.transitions(), h, s, lease, end, next, now)) {
      throw Refusals.lost(lease);
    }
    VerbStatements.append(
        h,
        now,
        new JournalEntry.StepCompleted(
            lease.runId(),
            lease.stepId(),
            lease.attempt(),
            end.reason(),
            end.disposition(),
            Optional.empty(),
            confirmed,
            tail,
            next));
    if (readyNow) {
      VerbStatements.notifyWork(h, lease.runId());
    }
    RunStatus after = RunEnds.afterAttempt(db.transitions(), h, run, end, lease.stepId(), now);
    return new CompletionAck(end.reason(), end.disposition(), next, after);
  }
}
