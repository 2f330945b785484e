-- flows.schedules_overview gains what a page of schedules shows beside each one: its whole
-- definition (so the kernel's calendar can list the next ticks: ScheduleDefinition.nextTickAfter),
-- its excluded calendars, catch-up window, jitter, pause-on-failure and queue, the last tick taken
-- and when its last run was created and ended. The columns V21 gave keep their names and order.
CREATE OR REPLACE VIEW flows.schedules_overview AS
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
       s.updated_at,
       s.definition,
       coalesce(s.definition -> 'exclude', '[]'::jsonb) AS excluded,
       (s.definition ->> 'catchUpWindow')::interval AS catch_up_window,
       (s.definition ->> 'jitter')::interval AS jitter,
       (s.definition ->> 'pauseOnFailure')::boolean AS pause_on_failure,
       s.definition ->> 'queue' AS queue,
       (SELECT max(e.nominal_at) FROM flows.schedule_entries e
         WHERE e.schedule_name = s.name AND e.nominal_at IS NOT NULL) AS last_tick_at,
       r.created_at AS last_run_created_at,
       r.completed_at AS last_run_completed_at
  FROM flows.schedules s
  LEFT JOIN flows.runs r ON r.run_id = s.last_run_id;
