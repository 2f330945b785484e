-- Queues and why a step waits.
--
-- A run's queue (dev.flows.kernel.journal.Queues): workers claim only the queues they serve. A root
-- run names it at admission; a child run is in its parent's queue whatever its admission says, so
-- a flow's whole tree is served by the root's queue. The trigger sets it for every writer (the
-- plain insert and flows.start_claimed alike); its WHEN keeps root inserts free of it. The trigger
-- and its function flows.run_inherits_queue are in R__journal_functions.sql, which runs after
-- this migration.
ALTER TABLE flows.runs ADD COLUMN queue text NOT NULL DEFAULT 'default'
  CONSTRAINT runs_queue_name CHECK (queue ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$');

-- Why a ready step is not being claimed, as a worker that could not take it noted
-- (Journal.noteUnaccepted). `attempts` is the step's attempt count when noted: the claim that
-- opens its next attempt makes the note stale without writing here, so the claim pays nothing.
CREATE TABLE flows.step_wait_notes (
  run_id    text NOT NULL,
  step_id   text NOT NULL,
  attempts  integer NOT NULL CHECK (attempts >= 0),
  reason    text NOT NULL CHECK (reason <> ''),
  worker_id text NOT NULL,
  noted_at  timestamptz NOT NULL,
  PRIMARY KEY (run_id, step_id),
  FOREIGN KEY (run_id, step_id) REFERENCES flows.steps (run_id, step_id)
);

-- Two columns at the end (a view keeps its existing columns in place): the run's queue, and the
-- reason one of its ready steps waits, while that note is current.
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
       r.rerun_of,
       r.queue,
       (SELECT n.reason
          FROM flows.step_wait_notes n
          JOIN flows.steps w ON w.run_id = n.run_id AND w.step_id = n.step_id
         WHERE n.run_id = r.run_id AND w.status = 'ready' AND w.attempts = n.attempts
         ORDER BY n.step_id
         LIMIT 1)                                        AS waiting_reason
  FROM flows.runs r
  LEFT JOIN flows.steps s ON s.run_id = r.run_id
 GROUP BY r.run_id;
