package dev.flows.journalstore;

import dev.flows.journalstore.JournalRows.RunRow;
import dev.flows.journalstore.JournalRows.StepRow;
import dev.flows.kernel.journal.AttemptEnd;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.DurableTasks;
import dev.flows.kernel.journal.ExpiredAttempt;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.StepStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Lease expiry: attempts past their deadline end as the kernel decides ({@link AttemptEnd#expired},
 * from the step row and its task's row in {@code flows.mcp_task_state}), one transaction per
 * attempt, so a concurrent expirer or a late completion decides each attempt under its own locks
 * and every expired attempt is journaled exactly once.
 */
final class Expiry {
  private final JournalDb db;
  private final int batchSize;

  Expiry(JournalDb db, int batchSize) {
    this.db = db;
    this.batchSize = batchSize;
  }

  private record Candidate(RunRef runId, String stepId, int attempt) {}

  List<ExpiredAttempt> expireLeases() {
    List<Candidate> candidates =
        db.tx(
            h ->
                VerbStatements.query(
                    h,
                    "steps_expired",
                    q -> q.bind("limit", batchSize).bind("now", db.clock()),
                    (rs, ctx) ->
                        new Candidate(
                            new RunRef(rs.getString("run_id")),
                            rs.getString("step_id"),
                            rs.getInt("attempts"))));
    List<ExpiredAttempt> expired = new ArrayList<>();
    for (Candidate c : candidates) {
      db.tx(h -> expireOne(h, c)).ifPresent(expired::add);
    }
    return expired;
  }

  private Optional<ExpiredAttempt> expireOne(Handle h, Candidate c) {
    Instant now = db.now(h);
    Optional<RunRow> run = VerbStatements.lockRun(h, c.runId());
    Optional<StepRow> step = VerbStatements.lockStep(h, c.runId(), c.stepId());
    if (run.isEmpty() || step.isEmpty()) {
      return Optional.empty();
    }
    StepRow s = step.get();
    if (run.get().status().terminal()
        || s.status() != StepStatus.RUNNING
        || s.attempts() != c.attempt()
        || Lifecycle.leaseLive(s.leaseDeadline(), now)) {
      return Optional.empty();
    }
    LeaseToken token = new LeaseToken(s.runId(), s.stepId(), s.attempts(), s.leaseId());
    Optional<DurableTasks.StepTask> task = TaskVerbs.read(h, s.runId(), s.stepId());
    AttemptEnd end =
        AttemptEnd.expired(
            s.attempts(),
            s.suspensions(),
            s.runId(),
            s.spec(),
            task,
            () -> VerbStatements.unconfirmedElection(h, s.runId(), s.stepId()),
            now);
    boolean retry = end.disposition() == Disposition.RETRY;
    Optional<Instant> next = end.afterExpiry(now, s.spec(), s.runId(), s.stepId(), s.attempts());
    VerbStatements.endUnreported(db.transitions(), h, s, end, next, now);
    if (retry) {
      VerbStatements.notifyWork(h, s.runId());
    }
    RunEnds.afterAttempt(db.transitions(), h, run.get(), end, s.stepId(), now);
    return Optional.of(new ExpiredAttempt(token, end.disposition()));
  }
}
