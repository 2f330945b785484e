-- A run started again by `flows runs rerun` (the same input under the current source) names the
-- run it repeats. Provenance, set at admission and never changed: not part of the spec or its hash.
ALTER TABLE flows.runs ADD COLUMN rerun_of text REFERENCES flows.runs (run_id);
ALTER TABLE flows.runs ADD CONSTRAINT runs_not_own_rerun CHECK (rerun_of IS DISTINCT FROM run_id);
CREATE INDEX runs_rerun_of ON flows.runs (rerun_of) WHERE rerun_of IS NOT NULL;

-- Immutable like the run's other provenance: flows.check_run_change (R__) refuses a change.

-- The view gains the link as its last column (existing columns keep their names and meaning).
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
       count(s.step_id)                                  AS steps_total,
       count(s.step_id) FILTER (WHERE s.status = 'waiting')   AS steps_waiting,
       count(s.step_id) FILTER (WHERE s.status = 'ready')     AS steps_ready,
       count(s.step_id) FILTER (WHERE s.status = 'running')   AS steps_running,
       count(s.step_id) FILTER (WHERE s.status = 'parked')    AS steps_parked,
       count(s.step_id) FILTER (WHERE s.status = 'succeeded') AS steps_succeeded,
       count(s.step_id) FILTER (WHERE s.status = 'failed')    AS steps_failed,
       count(s.step_id) FILTER (WHERE s.status = 'canceled')  AS steps_canceled,
       coalesce(sum(s.attempts), 0)                      AS attempts_total,
       r.rerun_of
  FROM flows.runs r
  LEFT JOIN flows.steps s ON s.run_id = r.run_id
 GROUP BY r.run_id;
