package dev.flows.journalstore;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.LeaseRenewals;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.lifecycle.RunStatus;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lease renewal: one statement in autocommit ({@code sql/leases_renew.sql}), one commit, however
 * many leases: the fence of a heartbeat per lease, "now" read once. Leases are sent in (run, step)
 * order so two batches lock shared rows in one order.
 */
final class LeaseRenewal {
  private static final PositionalSql LEASES_RENEW = PositionalSql.of(Sql.text("leases_renew"));

  private final JournalDb db;

  LeaseRenewal(JournalDb db) {
    this.db = db;
  }

  LeaseRenewals renewLeases(Collection<LeaseToken> leases) {
    if (leases.isEmpty()) {
      return LeaseRenewals.none();
    }
    List<LeaseToken> asked =
        leases.stream()
            .distinct()
            .sorted(
                Comparator.comparing((LeaseToken t) -> t.runId().value())
                    .thenComparing(LeaseToken::stepId))
            .toList();
    Map<String, LeaseToken> byKey = new HashMap<>();
    asked.forEach(
        t -> byKey.put(leaseKey(t.runId().value(), t.stepId(), t.attempt(), t.leaseId()), t));
    Map<LeaseToken, Instant> renewed = new HashMap<>();
    Map<LeaseToken, String> runStatus = new HashMap<>();
    db.autocommitRows(
        LEASES_RENEW,
        (sql, ps) -> {
          sql.bind(ps, "runIds", asked.stream().map(t -> t.runId().value()).toArray(String[]::new));
          sql.bind(ps, "stepIds", asked.stream().map(LeaseToken::stepId).toArray(String[]::new));
          sql.bind(ps, "attempts", asked.stream().mapToInt(LeaseToken::attempt).toArray());
          sql.bind(ps, "leaseIds", asked.stream().map(LeaseToken::leaseId).toArray(String[]::new));
          sql.bind(ps, "now", db.clock());
        },
        rs -> {
          // Looked up on the whole token: a forged token for a renewed step must not read as
          // renewed.
          LeaseToken t =
              byKey.get(
                  leaseKey(
                      rs.getString("run_id"),
                      rs.getString("step_id"),
                      rs.getInt("attempt"),
                      rs.getString("lease_id")));
          if (t != null) {
            if (rs.getString("kind").equals("renewed")) {
              renewed.put(t, JournalRows.instant(rs, "lease_deadline"));
            } else {
              runStatus.put(t, rs.getString("run_status"));
            }
          }
        });
    Map<LeaseToken, ErrorCode> refused = new HashMap<>();
    for (LeaseToken t : asked) {
      if (!renewed.containsKey(t)) {
        String status = runStatus.get(t);
        refused.put(
            t,
            status == null
                ? ErrorCode.RUN_NOT_FOUND
                : RunStatus.fromWire(status).terminal()
                    ? ErrorCode.RUN_TERMINAL
                    : ErrorCode.LEASE_CONFLICT);
      }
    }
    return new LeaseRenewals(renewed, refused);
  }

  private static String leaseKey(String runId, String stepId, int attempt, String leaseId) {
    return runId + '\u0000' + stepId + '\u0000' + attempt + '\u0000' + leaseId;
  }
}
