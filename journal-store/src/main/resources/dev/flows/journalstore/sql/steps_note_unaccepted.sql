-- Notes why ready steps wait (Journal.noteUnaccepted): steps of the caller's kinds and queues,
-- backoff passed, in a running run, on a route under the prefix that the caller does not accept,
-- without a note at their current attempt count. Read from steps_claimable; never locks a step.
WITH clock AS MATERIALIZED (
  SELECT coalesce(CAST(:now AS timestamptz), clock_timestamp()) AS now
),
unaccepted AS (
  SELECT s.run_id, s.step_id, s.attempts
    FROM flows.steps s
    JOIN flows.runs r ON r.run_id = s.run_id
   WHERE s.status = 'ready'
     AND s.not_before <= (SELECT now FROM clock)
     AND CAST(s.kind AS text) = ANY(:kinds)
     AND s.route ^@ :routePrefix
     AND NOT (:anyRoute OR s.route = ANY(:routes) OR s.route ^@ ANY(:routePrefixes))
     AND r.status = 'running'
     AND (:anyQueue OR r.queue = ANY(:queues))
     AND NOT EXISTS (SELECT 1 FROM flows.step_wait_notes n
                      WHERE n.run_id = s.run_id AND n.step_id = s.step_id
                        AND n.attempts = s.attempts)
   ORDER BY s.not_before, s.created_seq
   LIMIT :limit
)
INSERT INTO flows.step_wait_notes (run_id, step_id, attempts, reason, worker_id, noted_at)
SELECT u.run_id, u.step_id, u.attempts, :reason, :workerId, (SELECT now FROM clock)
  FROM unaccepted u
ON CONFLICT (run_id, step_id) DO UPDATE
   SET attempts = EXCLUDED.attempts, reason = EXCLUDED.reason, worker_id = EXCLUDED.worker_id,
       noted_at = EXCLUDED.noted_at
