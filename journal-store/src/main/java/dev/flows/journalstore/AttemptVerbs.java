package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.JournalRows.ElectionRow;
import dev.flows.journalstore.JournalRows.StepRow;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.Elections;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.keys.Keys;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** A live attempt's fenced verbs: heartbeat, and the election and confirmation of an effect. */
final class AttemptVerbs {
  private final JournalDb db;
  private final Fence fence;

  AttemptVerbs(JournalDb db, Fence fence) {
    this.db = db;
    this.fence = fence;
  }

  Instant heartbeat(LeaseToken lease) {
    return db.tx(
        h -> {
          Instant now = db.now(h);
          fence.live(h, lease, now);
          return VerbStatements.query(
                  h,
                  "step_heartbeat",
                  q -> VerbStatements.fence(q, lease).bind("now", now.toString()),
                  (rs, ctx) -> JournalRows.instant(rs, "lease_deadline"))
              .stream()
              .findFirst()
              .orElseThrow(() -> Refusals.lost(lease));
        });
  }

  EffectElection recordEffect(LeaseToken lease, String surfacePath) {
    return db.tx(h -> recordIn(h, lease, surfacePath, db.now(h)));
  }

  void confirmEffect(LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    db.tx(
        h -> {
          confirmIn(h, lease, surfacePath, output, db.now(h));
          return null;
        });
  }

  /** Record, then confirm unless the record found the effect performed: one transaction. */
  EffectElection recordConfirmedEffect(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    return db.tx(h -> recordConfirmedIn(h, lease, surfacePath, output, db.now(h)));
  }

  /** As {@link #recordConfirmedEffect}, in the caller's transaction. */
  EffectElection recordConfirmedIn(
      Handle h, LeaseToken lease, String surfacePath, Optional<JsonNode> output, Instant now) {
    EffectElection e = recordIn(h, lease, surfacePath, now);
    if (!e.deduped()) {
      confirmIn(h, lease, surfacePath, output, now);
    }
    return e;
  }

  private EffectElection recordIn(Handle h, LeaseToken lease, String surfacePath, Instant now) {
    StepRow s = fence.live(h, lease, now);
    Elections.requireDeclared(s.spec(), lease, surfacePath);
    String key = Keys.idempotencyKey(lease.runId(), lease.stepId());
    Optional<ElectionRow> found = VerbStatements.lockElection(h, lease, surfacePath);
    return switch (found
        .map(e -> Elections.decide(e.attempt(), e.confirmed(), lease.attempt()))
        .orElse(Elections.Decision.ELECT)) {
      case ELECT -> {
        VerbStatements.expectOne(
            electionWrite(h, "election_insert", lease, surfacePath)
                .bind("idempotencyKey", key)
                .bind("now", now.toString())
                .execute(),
            "elect " + surfacePath);
        VerbStatements.append(h, now, recorded(lease, surfacePath, key, false));
        yield new EffectElection(key, false, false, Optional.empty());
      }
      case PERFORMED -> new EffectElection(key, true, false, found.get().output());
      case HELD -> new EffectElection(key, false, false, Optional.empty());
      case TAKE_OVER -> {
        VerbStatements.expectOne(
            electionWrite(h, "election_take_over", lease, surfacePath)
                .bind("now", now.toString())
                .execute(),
            "take over " + surfacePath);
        VerbStatements.append(h, now, recorded(lease, surfacePath, key, true));
        yield new EffectElection(key, false, true, Optional.empty());
      }
    };
  }

  static JournalEntry.EffectRecorded recorded(
      LeaseToken lease, String surfacePath, String key, boolean takenOver) {
    return new JournalEntry.EffectRecorded(
        lease.runId(), lease.stepId(), lease.attempt(), surfacePath, key, takenOver);
  }

  void confirmIn(
      Handle h, LeaseToken lease, String surfacePath, Optional<JsonNode> output, Instant now) {
    fence.live(h, lease, now);
    Optional<ElectionRow> election = VerbStatements.lockElection(h, lease, surfacePath);
    if (election.isEmpty() || election.get().attempt() != lease.attempt()) {
      throw Refusals.notRecorded(lease, surfacePath);
    }
    if (election.get().confirmed()) {
      return;
    }
    VerbStatements.expectOne(
        electionWrite(h, "election_confirm", lease, surfacePath)
            .bind("output", output.map(EntryCodec::text).orElse(null))
            .bind("now", now.toString())
            .execute(),
        "confirm " + surfacePath);
    VerbStatements.append(
        h,
        now,
        new JournalEntry.EffectConfirmed(
            lease.runId(),
            lease.stepId(),
            lease.attempt(),
            surfacePath,
            election.get().idempotencyKey(),
            output));
  }

  private static org.jdbi.v3.core.statement.Update electionWrite(
      Handle h, String sql, LeaseToken lease, String surfacePath) {
    return VerbStatements.bindStep(h.createUpdate(Sql.text(sql)), lease.runId(), lease.stepId())
        .bind("surfacePath", surfacePath)
        .bind("attempt", lease.attempt());
  }
}
