-- Schedules: flows started on a calendar. flows.schedules holds each schedule as it is now (its
-- definition as the kernel's canonical JSON, ScheduleDefinition.toJson), flows.schedule_entries
-- its journal: every change and every tick decided, append-only and kept after a delete. The
-- rules (what a change or a tick does) are the kernel's (Schedules, Ticking), applied by the
-- journal in one transaction under the schedule's row lock.

CREATE TABLE flows.schedules (
  name         text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$'),
  flow         text NOT NULL,
  definition   jsonb NOT NULL CHECK (jsonb_typeof(definition) = 'object'),
  paused       boolean NOT NULL DEFAULT false,
  -- The nominal time of the next calendar tick not yet decided; NULL once the calendar ended.
  next_tick_at timestamptz,
  -- next_tick_at plus its jitter: when a worker takes it.
  due_at       timestamptz,
  -- Ticks decided to start that wait their turn (buffered, triggered, backfilled), oldest first:
  -- [{"nominal": ..., "source": ...}].
  pending      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(pending) = 'array'),
  -- The last run a tick started; no reference: retention may prune it.
  last_run_id  text,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  CONSTRAINT schedule_due_whole CHECK ((next_tick_at IS NULL) = (due_at IS NULL))
);

-- What the ticker reads: schedules of its flows with a tick due.
CREATE INDEX schedules_due ON flows.schedules (due_at) WHERE NOT paused;

CREATE TABLE flows.schedule_entries (
  seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at            timestamptz NOT NULL,
  schedule_name text NOT NULL,
  entry_type    text NOT NULL CHECK (entry_type IN (
                  'schedule.created', 'schedule.updated', 'schedule.paused', 'schedule.resumed',
                  'schedule.deleted', 'schedule.ticks.requested', 'schedule.tick.started',
                  'schedule.tick.skipped', 'schedule.tick.buffered')),
  created_by    text NOT NULL,
  -- Set for a tick's entries: its nominal time, and the run of one that started.
  nominal_at    timestamptz,
  run_id        text,
  payload       jsonb NOT NULL CHECK (jsonb_typeof(payload) = 'object')
);
CREATE INDEX schedule_entries_by_schedule ON flows.schedule_entries (schedule_name, seq);

CREATE TRIGGER schedule_entries_append_only
  BEFORE UPDATE OR DELETE ON flows.schedule_entries
  FOR EACH ROW EXECUTE FUNCTION flows.refuse_change();
CREATE TRIGGER schedule_entries_no_truncate
  BEFORE TRUNCATE ON flows.schedule_entries
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_change();

-- For plain SQL and the console: each schedule, its next tick, what waits, and its last run.
CREATE VIEW flows.schedules_overview AS
SELECT s.name,
       s.flow,
       coalesce(s.definition ->> 'cron',
                'every ' || (s.definition ->> 'every') || ' offset ' || (s.definition ->> 'offset'))
         AS calendar,
       s.definition ->> 'zone' AS zone,
       s.definition ->> 'overlap' AS overlap,
       s.paused,
       s.next_tick_at,
       s.due_at,
       jsonb_array_length(s.pending) AS pending_ticks,
       s.last_run_id,
       r.status AS last_run_status,
       (SELECT count(*) FROM flows.schedule_entries e
         WHERE e.schedule_name = s.name AND e.entry_type = 'schedule.tick.started') AS ticks_started,
       (SELECT count(*) FROM flows.schedule_entries e
         WHERE e.schedule_name = s.name AND e.entry_type = 'schedule.tick.skipped') AS ticks_skipped,
       s.created_at,
       s.updated_at
  FROM flows.schedules s
  LEFT JOIN flows.runs r ON r.run_id = s.last_run_id;
