package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.JournalRows.ElectionRow;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.SignalSent;
import dev.flows.kernel.journal.Signals;
import dev.flows.kernel.lifecycle.RunStatus;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.JdbiException;

/**
 * Signals: sending is {@code flows.send_signal} (the rule plain SQL uses too); taking one is a
 * fenced verb that delivers it and journals it as the attempt's confirmed effect in one
 * transaction.
 */
final class SignalVerbs {
  private final JournalDb db;
  private final Fence fence;
  private final AttemptVerbs verbs;

  SignalVerbs(JournalDb db, Fence fence, AttemptVerbs verbs) {
    this.db = db;
    this.fence = fence;
    this.verbs = verbs;
  }

  SignalSent send(RunRef runId, String name, JsonNode payload, Optional<String> key) {
    Signals.check(name, key);
    db.limits().requireSignal(name, payload);
    return db.tx(
        h -> {
          Instant now = db.now(h);
          try {
            return h.createQuery(Sql.text("signal_send"))
                .bind("runId", runId.value())
                .bind("name", name)
                .bind("payload", EntryCodec.text(payload))
                .bind("key", key.orElse(null))
                .bind("now", now.toString())
                .map(
                    (rs, ctx) ->
                        new SignalSent(
                            runId,
                            rs.getString("name"),
                            rs.getLong("seq"),
                            rs.getBoolean("deduped")))
                .one();
          } catch (JdbiException e) {
            throw refusal(e, runId).orElseThrow(() -> e);
          }
        });
  }

  /** The function's refusals, as the in-memory journal throws them. */
  private static Optional<RuntimeException> refusal(JdbiException e, RunRef runId) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        return switch (sql.getSQLState()) {
          case "P0002" -> Optional.of(Refusals.runNotFound(runId));
          case "55000" -> Optional.of(terminal(sql.getMessage(), runId));
          default -> Optional.empty();
        };
      }
    }
    return Optional.empty();
  }

  private static RuntimeException terminal(String message, RunRef runId) {
    for (RunStatus s : RunStatus.values()) {
      if (s.terminal() && message.contains("ended (" + s.wire() + ")")) {
        return Signals.ended(runId, s);
      }
    }
    return Signals.ended(runId, RunStatus.CANCELED);
  }

  Optional<JsonNode> take(LeaseToken lease, String name, String surfacePath) {
    return db.tx(
        h -> {
          Instant now = db.now(h);
          VerbStatements.lockRun(h, lease.runId())
              .orElseThrow(() -> Refusals.runNotFound(lease.runId()));
          fence.live(h, lease, now);
          Optional<ElectionRow> done = VerbStatements.lockElection(h, lease, surfacePath);
          if (done.isPresent() && done.get().confirmed()) {
            return done.get().output();
          }
          record Pending(long seq, Optional<JsonNode> payload) {}
          Optional<Pending> next =
              h.createQuery(Sql.text("signal_take_lock"))
                  .bind("runId", lease.runId().value())
                  .bind("name", name)
                  .map((rs, ctx) -> new Pending(rs.getLong("seq"), JournalRows.json(rs, "payload")))
                  .findOne();
          if (next.isEmpty()) {
            return Optional.<JsonNode>empty();
          }
          JsonNode output =
              Signals.delivered(name, next.get().seq(), next.get().payload().orElseThrow());
          verbs.recordConfirmedIn(h, lease, surfacePath, Optional.of(output), now);
          VerbStatements.expectOne(
              VerbStatements.bindStep(
                      h.createUpdate(Sql.text("signal_deliver")), lease.runId(), lease.stepId())
                  .bind("name", name)
                  .bind("seq", next.get().seq())
                  .bind("attempt", lease.attempt())
                  .bind("surfacePath", surfacePath)
                  .bind("now", now.toString())
                  .execute(),
              "deliver signal " + name);
          return Optional.of(output);
        });
  }

  /** Whether a signal named one of {@code names} is pending for the run (under the run's lock). */
  static boolean pending(Handle h, RunRef runId, Set<String> names) {
    if (names.isEmpty()) {
      return false;
    }
    return h.createQuery(Sql.text("signals_pending_any"))
        .bind("runId", runId.value())
        .bindArray("names", String.class, names)
        .mapTo(Boolean.class)
        .one();
  }
}
