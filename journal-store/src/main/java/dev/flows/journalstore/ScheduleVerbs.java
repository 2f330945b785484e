package dev.flows.journalstore;

import dev.flows.kernel.RunAdmissionConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleEntryJson;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import dev.flows.kernel.schedule.TickBatch;
import dev.flows.kernel.schedule.TickDecision;
import dev.flows.kernel.schedule.Ticking;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * Schedules on Postgres: each change and each take is one transaction under the schedule's row lock
 * ({@code schedule_lock}), applying the kernel's rule ({@link Schedules#change}, {@link
 * Ticking#plan}) at the journal's now; a tick's run is admitted in that transaction ({@link
 * Admission#queuedIn}).
 */
final class ScheduleVerbs {
  /** Locks the rows a batch take reads; a row another taker holds is skipped, not waited for. */
  private static final String HOLD_SKIPPING_HELD = "\n   FOR UPDATE OF s SKIP LOCKED";

  private static final RowMapper<ScheduleState> STATE = (rs, ctx) -> state(rs);

  private final JournalDb db;
  private final Admission admission;
  private final Cancels cancels;

  ScheduleVerbs(JournalDb db, Admission admission, Cancels cancels) {
    this.db = db;
    this.admission = admission;
    this.cancels = cancels;
  }

  Schedules.Changed change(ScheduleChange c) {
    return db.tx(
        h -> {
          Instant now = db.now(h);
          for (int pass = 0; ; pass++) {
            Optional<ScheduleState> current = lock(h, c.name());
            Schedules.Changed changed = Schedules.change(current, c, now, db.limits());
            if (current.isEmpty() && changed.state().isPresent()) {
              if (!insert(h, changed.schedule())) {
                if (pass > 0) {
                  throw new IllegalStateException("schedule insert conflicted twice: " + c.name());
                }
                continue;
              }
            } else if (changed.state().isPresent()) {
              save(h, changed.schedule());
            } else {
              h.createUpdate(Sql.text("schedule_delete")).bind("name", c.name()).execute();
            }
            for (ScheduleEntry e : changed.entries()) {
              append(h, c.name(), c.by(), e, now);
            }
            return changed;
          }
        });
  }

  Optional<ScheduleState> schedule(String name) {
    return db.tx(
        h ->
            h.createQuery(Sql.text("schedule_columns") + " WHERE name = :name")
                .bind("name", name)
                .map(STATE)
                .findOne());
  }

  List<ScheduleState> all() {
    return db.tx(
        h -> h.createQuery(Sql.text("schedule_columns") + " ORDER BY name").map(STATE).list());
  }

  List<ScheduleRecord> entries(String name) {
    return db.tx(
        h ->
            h.createQuery(Sql.text("schedule_entries_of"))
                .bind("name", name)
                .map(
                    (rs, ctx) ->
                        new ScheduleRecord(
                            rs.getLong("seq"),
                            JournalRows.instant(rs, "at"),
                            rs.getString("schedule_name"),
                            rs.getString("created_by"),
                            ScheduleEntryJson.read(
                                rs.getString("entry_type"),
                                JournalRows.json(rs, "payload").orElseThrow())))
                .list());
  }

  List<ScheduleState> due(Set<String> flows, int limit) {
    if (flows.isEmpty()) {
      return List.of();
    }
    return db.tx(
        h ->
            h.createQuery(Sql.text("schedules_due"))
                .bindArray("flows", String.class, flows)
                .bind("now", db.now(h).toString())
                .bind("limit", limit)
                .map(STATE)
                .list());
  }

  List<ScheduleEntry> take(String name, StartRun template, String by) {
    return db.tx(
        h -> {
          Instant now = db.now(h);
          Optional<ScheduleState> found = lock(h, name);
          if (found.isEmpty()) {
            return List.<ScheduleEntry>of();
          }
          ScheduleState s = found.get();
          Writes writes = new Writes(h);
          List<ScheduleEntry> written = takeHeld(h, s, lastStatus(h, s), template, by, now, writes);
          writes.send();
          return written;
        });
  }

  /**
   * A batch take: the due schedules' rows ({@code schedules_due}, the one statement of what is due)
   * held at once, skipping those another taker holds (so two workers split them), their last runs'
   * statuses read in one statement after that, then each taken as {@link #take} takes one.
   */
  TickBatch takeDue(
      Set<String> flows,
      int limit,
      Function<ScheduleDefinition, Optional<StartRun>> templates,
      String by) {
    if (flows.isEmpty()) {
      return new TickBatch(0, List.of());
    }
    return db.tx(
        h -> {
          Instant now = db.now(h);
          List<ScheduleState> held =
              h.createQuery(Sql.text("schedules_due") + HOLD_SKIPPING_HELD)
                  .bindArray("flows", String.class, flows)
                  .bind("now", now.toString())
                  .bind("limit", limit)
                  .map(STATE)
                  .list();
          Map<String, RunStatus> statuses = lastStatuses(h, held);
          Writes writes = new Writes(h);
          List<TickBatch.Taken> taken = new ArrayList<>();
          for (ScheduleState s : held) {
            Optional<StartRun> template = templates.apply(s.definition());
            if (template.isEmpty()) {
              continue;
            }
            Optional<RunStatus> last = s.lastRun().map(r -> statuses.get(r.value()));
            List<ScheduleEntry> written = takeHeld(h, s, last, template.get(), by, now, writes);
            if (!written.isEmpty()) {
              taken.add(new TickBatch.Taken(s.name(), written));
            }
          }
          writes.send();
          return new TickBatch(held.size(), taken);
        });
  }

  /**
   * Takes the ticks of schedule {@code s}, whose row {@code h} holds; its row and entries are
   * written by {@code writes}, with the other schedules' of the take.
   */
  private List<ScheduleEntry> takeHeld(
      Handle h,
      ScheduleState s,
      Optional<RunStatus> lastStatus,
      StartRun template,
      String by,
      Instant now,
      Writes writes) {
    String name = s.name();
    Ticking.Plan plan = Ticking.plan(s, lastStatus, now);
    if (!plan.changes(s)) {
      return List.of();
    }
    List<ScheduleEntry> written = new ArrayList<>();
    ScheduleState after;
    if (plan.pauseReason().isPresent()) {
      written.add(new ScheduleEntry.Paused(plan.pauseReason().get()));
      after =
          new ScheduleState(
              s.definition(),
              true,
              s.nextTick(),
              s.pending(),
              Optional.empty(),
              s.createdAt(),
              now);
    } else {
      Optional<RunRef> last = s.lastRun();
      for (Ticking.Decided t : plan.ticks()) {
        last = decide(h, s, t, template, last, now, written);
      }
      after =
          new ScheduleState(
              s.definition(), false, plan.nextTick(), plan.pending(), last, s.createdAt(), now);
    }
    writes.save(after);
    for (ScheduleEntry e : written) {
      writes.append(name, by, e, now);
    }
    return written;
  }

  /** Journals tick {@code t}, admitting its run when it starts; answers the schedule's last run. */
  private Optional<RunRef> decide(
      Handle h,
      ScheduleState s,
      Ticking.Decided t,
      StartRun template,
      Optional<RunRef> last,
      Instant now,
      List<ScheduleEntry> written) {
    if (!t.decision().starts()) {
      written.add(new ScheduleEntry.TickNotStarted(t.nominal(), t.source(), t.decision()));
      return last;
    }
    Optional<RunRef> canceled = Optional.empty();
    if (t.decision() == TickDecision.CANCELED_OTHER && last.isPresent()) {
      cancels.cancelIn(
          h, last.get(), "canceled by tick " + t.nominal() + " of schedule " + s.name(), now);
      canceled = last;
    }
    try {
      StartedRun r = admission.queuedIn(h, Schedules.tickRun(template, s, t.nominal()), now);
      written.add(
          new ScheduleEntry.TickStarted(
              t.nominal(), t.source(), t.decision(), r.runId(), r.created(), canceled));
      return Optional.of(r.runId());
    } catch (RunAdmissionConflictException | RunTerminalException e) {
      // The tick's run id or key admitted another run (a changed flow) or was tombstoned.
      written.add(
          new ScheduleEntry.TickNotStarted(t.nominal(), t.source(), TickDecision.SKIPPED_CONFLICT));
      return last;
    }
  }

  private static Optional<RunStatus> lastStatus(Handle h, ScheduleState s) {
    return s.lastRun()
        .flatMap(
            id ->
                h.createQuery(Sql.text("run_status"))
                    .bind("runId", id.value())
                    .map((rs, ctx) -> RunStatus.fromWire(rs.getString("status")))
                    .findOne());
  }

  private static Map<String, RunStatus> lastStatuses(Handle h, List<ScheduleState> held) {
    List<String> ids = held.stream().flatMap(s -> s.lastRun().stream()).map(RunRef::value).toList();
    if (ids.isEmpty()) {
      return Map.of();
    }
    return h.createQuery(Sql.text("run_statuses"))
        .bindArray("runIds", String.class, ids)
        .reduceRows(
            new HashMap<String, RunStatus>(),
            (m, row) -> {
              m.put(
                  row.getColumn("run_id", String.class),
                  RunStatus.fromWire(row.getColumn("status", String.class)));
              return m;
            });
  }

  private static Optional<ScheduleState> lock(Handle h, String name) {
    return h.createQuery(Sql.text("schedule_lock")).bind("name", name).map(STATE).findOne();
  }

  private static boolean insert(Handle h, ScheduleState s) {
    return bind(h.createUpdate(Sql.text("schedule_insert")), s)
            .bind("createdAt", s.createdAt().toString())
            .execute()
        == 1;
  }

  private static void save(Handle h, ScheduleState s) {
    bind(h.createUpdate(Sql.text("schedule_update")), s).execute();
  }

  /**
   * A take's writes of schedule rows and schedule entries, sent as two batches at its end (a batch
   * take's hundreds of rows in two round trips, not one each), in the order they were made.
   */
  private static final class Writes {
    private final PreparedBatch saves;
    private final PreparedBatch appends;

    Writes(Handle h) {
      saves = h.prepareBatch(Sql.text("schedule_update"));
      appends = h.prepareBatch(Sql.text("schedule_entry_insert"));
    }

    void save(ScheduleState s) {
      bind(saves, s).add();
    }

    void append(String name, String by, ScheduleEntry e, Instant now) {
      entry(appends, name, by, e, now).add();
    }

    void send() {
      if (saves.size() > 0) {
        saves.execute();
      }
      if (appends.size() > 0) {
        appends.execute();
      }
    }
  }

  private static <S extends SqlStatement<S>> S bind(S u, ScheduleState s) {
    ScheduleDefinition d = s.definition();
    return u.bind("name", d.name())
        .bind("flow", d.flow())
        .bind("definition", EntryCodec.text(d.toJson()))
        .bind("paused", s.paused())
        .bind("nextTick", s.nextTick().map(Instant::toString).orElse(null))
        .bind("dueAt", s.dueAt().map(Instant::toString).orElse(null))
        .bind("pending", EntryCodec.text(ScheduleEntryJson.pending(s.pending())))
        .bind("lastRunId", s.lastRun().map(RunRef::value).orElse(null))
        .bind("updatedAt", s.updatedAt().toString());
  }

  private static void append(Handle h, String name, String by, ScheduleEntry e, Instant now) {
    entry(h.createUpdate(Sql.text("schedule_entry_insert")), name, by, e, now).execute();
  }

  private static <S extends SqlStatement<S>> S entry(
      S statement, String name, String by, ScheduleEntry e, Instant now) {
    Optional<Instant> nominal =
        switch (e) {
          case ScheduleEntry.TickStarted t -> Optional.of(t.nominal());
          case ScheduleEntry.TickNotStarted t -> Optional.of(t.nominal());
          default -> Optional.empty();
        };
    Optional<String> runId =
        e instanceof ScheduleEntry.TickStarted t
            ? Optional.of(t.runId().value())
            : Optional.empty();
    return statement
        .bind("at", now.toString())
        .bind("name", name)
        .bind("type", e.type())
        .bind("by", by)
        .bind("nominal", nominal.map(Instant::toString).orElse(null))
        .bind("runId", runId.orElse(null))
        .bind("payload", EntryCodec.text(ScheduleEntryJson.payload(e)));
  }

  private static ScheduleState state(ResultSet rs) throws SQLException {
    return new ScheduleState(
        ScheduleDefinition.fromJson(JournalRows.json(rs, "definition").orElseThrow()),
        rs.getBoolean("paused"),
        Optional.ofNullable(JournalRows.instant(rs, "next_tick_at")),
        ScheduleEntryJson.pending(JournalRows.json(rs, "pending").orElseThrow()),
        Optional.ofNullable(rs.getString("last_run_id")).map(RunRef::new),
        JournalRows.instant(rs, "created_at"),
        JournalRows.instant(rs, "updated_at"));
  }
}
