package dev.flows.journalstore;

import dev.flows.kernel.journal.LiveText;
import dev.flows.kernel.journal.RunRef;
import java.util.List;

/**
 * Partial text of running model turns in the unlogged table {@code flows.live_text} (one row per
 * running turn, overwritten with the text so far, deleted when the turn ends): every process on the
 * database reads it, nothing of it is in the journal or its WAL.
 */
final class PostgresLiveText implements LiveText {
  private final JournalDb db;

  PostgresLiveText(JournalDb db) {
    this.db = db;
  }

  @Override
  public void publish(RunRef runId, String stepId, String text) {
    db.tx(
        h ->
            h.createUpdate(Sql.text("live_text_publish"))
                .bind("run_id", runId.value())
                .bind("step_id", stepId)
                .bind("text", text)
                .execute());
  }

  @Override
  public void clear(RunRef runId, String stepId) {
    db.tx(
        h ->
            h.createUpdate(Sql.text("live_text_clear"))
                .bind("run_id", runId.value())
                .bind("step_id", stepId)
                .execute());
  }

  @Override
  public List<Partial> of(RunRef runId) {
    return db.tx(
        h ->
            h.createQuery(Sql.text("live_text_of"))
                .bind("run_id", runId.value())
                .map((rs, ctx) -> new Partial(rs.getString("step_id"), rs.getString("text")))
                .list());
  }
}
