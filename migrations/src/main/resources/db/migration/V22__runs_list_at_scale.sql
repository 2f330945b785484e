-- The run list (`flows runs list`, the console's first page) on a journal of millions of runs.
--
-- runs_overview grouped every run with its steps (LEFT JOIN ... GROUP BY r.run_id), and Postgres
-- does not push an ORDER BY ... LIMIT below a GROUP BY: the newest 50 runs cost an aggregate over
-- every run and step in the journal, growing with it. The same columns (same names, types and
-- order, so the view is replaced in place and keeps its grants) now come from a per-run aggregate
-- joined LATERAL: the view is a plain scan of runs, so newest-first with a LIMIT walks the index
-- below and aggregates only the runs it returns.
CREATE INDEX runs_newest ON flows.runs (created_at DESC, run_id);

CREATE OR REPLACE VIEW flows.runs_overview AS
SELECT r.run_id,
       r.name,
       r.status,
       r.parent_run_id,
       r.admission_key,
       r.tombstone,
       r.created_at,
       r.completed_at,
       r.completion_reason,
       s.steps_total,
       s.steps_waiting,
       s.steps_ready,
       s.steps_running,
       s.steps_parked,
       s.steps_succeeded,
       s.steps_failed,
       s.steps_canceled,
       s.attempts_total,
       r.rerun_of,
       r.queue,
       (SELECT n.reason
          FROM flows.step_wait_notes n
          JOIN flows.steps w ON w.run_id = n.run_id AND w.step_id = n.step_id
         WHERE n.run_id = r.run_id AND w.status = 'ready' AND w.attempts = n.attempts
         ORDER BY n.step_id
         LIMIT 1)                                        AS waiting_reason
  FROM flows.runs r
  CROSS JOIN LATERAL (
    SELECT count(st.step_id)                                      AS steps_total,
           count(st.step_id) FILTER (WHERE st.status = 'waiting')   AS steps_waiting,
           count(st.step_id) FILTER (WHERE st.status = 'ready')     AS steps_ready,
           count(st.step_id) FILTER (WHERE st.status = 'running')   AS steps_running,
           count(st.step_id) FILTER (WHERE st.status = 'parked')    AS steps_parked,
           count(st.step_id) FILTER (WHERE st.status = 'succeeded') AS steps_succeeded,
           count(st.step_id) FILTER (WHERE st.status = 'failed')    AS steps_failed,
           count(st.step_id) FILTER (WHERE st.status = 'canceled')  AS steps_canceled,
           coalesce(sum(st.attempts), 0)                          AS attempts_total
      FROM flows.steps st
     WHERE st.run_id = r.run_id) s;
