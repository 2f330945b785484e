package dev.flows.journalstore;

import dev.flows.kernel.journal.PruneReport;
import dev.flows.kernel.journal.PruneRequest;
import dev.flows.kernel.journal.RunRef;
import java.sql.Array;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** Retention: one batch of {@code flows.prune_runs}, in one transaction. */
final class Retention {
  private final JournalDb db;

  Retention(JournalDb db) {
    this.db = db;
  }

  PruneReport prune(PruneRequest req) {
    return db.tx(
        h ->
            h.createQuery(Sql.text("prune_runs"))
                .bind("olderThan", req.olderThan().toMillis() + " milliseconds")
                .bind("by", req.by())
                .bind("limit", req.limit().isPresent() ? req.limit().getAsInt() : null)
                .bind("dryRun", req.dryRun())
                .bind("now", db.clock())
                .map(
                    (rs, ctx) -> {
                      long id = rs.getLong("pruned");
                      Optional<Long> pruneId = rs.wasNull() ? Optional.empty() : Optional.of(id);
                      return new PruneReport(
                          pruneId,
                          roots(rs.getArray("root_ids")),
                          rs.getInt("run_count"),
                          rs.getLong("entry_count"),
                          req.dryRun());
                    })
                .one());
  }

  private static List<RunRef> roots(Array array) throws SQLException {
    return Arrays.stream((String[]) array.getArray()).map(RunRef::new).toList();
  }
}
