package dev.flows.journalstore;

import dev.flows.journalstore.JournalRows.StepRow;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.StepKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A claim: one statement in autocommit ({@code sql/claim_open.sql}, calling {@code
 * flows.claim_open}, which plans its query once per connection) picks, opens and journals the
 * attempts. The statement derives each attempt's lease id and idempotency key where it picks the
 * rows; they are checked here against {@link Keys}, the one definition, before any is handed out.
 */
final class Claims {
  private static final PositionalSql CLAIM_OPEN = PositionalSql.of(Sql.text("claim_open"));

  private final JournalDb db;
  private final StepSpecCache stepSpecs;

  Claims(JournalDb db, StepSpecCache stepSpecs) {
    this.db = db;
    this.stepSpecs = stepSpecs;
  }

  List<ClaimedAttempt> claim(ClaimRequest request) {
    if (request.capacity() == 0 || request.kinds().isEmpty()) {
      return List.of();
    }
    String[] kinds = request.kinds().stream().map(StepKind::wire).sorted().toArray(String[]::new);
    // The status the kernel's table gives a claimed step; checked per row below.
    StepStatus running = StepTransition.CLAIMED.to();
    List<ClaimedAttempt> claimed = new ArrayList<>();
    db.autocommitRows(
        CLAIM_OPEN,
        (sql, ps) -> {
          sql.bind(ps, "kinds", kinds);
          sql.bind(ps, "anyRoute", request.routes().isEmpty());
          sql.bind(
              ps,
              "routes",
              request.routes().map(r -> r.toArray(String[]::new)).orElse(new String[0]));
          sql.bind(ps, "routePrefixes", request.routePrefixes().toArray(String[]::new));
          sql.bind(ps, "anyQueue", request.queues().isEmpty());
          sql.bind(
              ps,
              "queues",
              request.queues().map(q -> q.toArray(String[]::new)).orElse(new String[0]));
          sql.bind(ps, "capacity", request.capacity());
          sql.bind(ps, "defaultLeaseMs", request.defaultLease().toMillis());
          sql.bind(ps, "runningStatus", running.wire());
          sql.bind(ps, "workerId", request.workerId().value());
          sql.bind(ps, "now", db.clock());
        },
        rs -> claimed.add(claimed(rs, request)));
    return claimed;
  }

  /** The attempt a claimed row opened, checked against the kernel's derivation of it. */
  private ClaimedAttempt claimed(java.sql.ResultSet rs, ClaimRequest request)
      throws java.sql.SQLException {
    StepRow s = JournalRows.STEP.map(rs, null);
    // The transition the statement made: the status it picked the step in, and the one it
    // wrote.
    db.transitions()
        .stepsMade(
            StepTransition.CLAIMED, s.status(), StepStatus.fromWire(rs.getString("new_status")), 1);
    int attempt = rs.getInt("new_attempt");
    String leaseId = rs.getString("new_lease_id");
    String key = rs.getString("idempotency_key");
    long leaseMs = rs.getLong("new_lease_ms");
    // A difference would fence every later verb of the attempt against the wrong lease, so
    // it stops here instead.
    if (attempt != s.attempts() + 1
        || !leaseId.equals(Keys.leaseId(s.runId(), s.stepId(), attempt))
        || !key.equals(Keys.idempotencyKey(s.runId(), s.stepId()))
        || leaseMs != s.spec().leaseMs().orElse(request.defaultLease().toMillis())) {
      throw new IllegalStateException(
          "flows.claim_open derived another attempt, lease or key than the kernel for "
              + s.runId()
              + "/"
              + s.stepId());
    }
    stepSpecs.put(s.runId(), s.stepId(), s.spec());
    return new ClaimedAttempt(
        new LeaseToken(s.runId(), s.stepId(), attempt, leaseId),
        JournalRows.instant(rs, "new_deadline"),
        leaseMs,
        s.spec(),
        key,
        Optional.ofNullable(rs.getString("parent_run_id")).map(RunRef::new));
  }
}
