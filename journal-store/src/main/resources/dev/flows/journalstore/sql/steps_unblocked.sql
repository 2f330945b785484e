-- Waiting steps of the run whose dependencies have all succeeded.
SELECT w.run_id, w.step_id, w.kind, w.status, w.depends_on, w.max_iterations, w.spec,
       w.attempts, w.lease_id, w.lease_deadline, w.lease_ms, w.worker_id, w.not_before,
       w.last_reason, w.output
  FROM flows.steps w
 WHERE w.run_id = :runId
   AND w.status = 'waiting'
   AND NOT EXISTS (SELECT 1
                     FROM flows.steps d
                    WHERE d.run_id = w.run_id
                      AND d.step_id = ANY(w.depends_on)
                      AND d.status <> 'succeeded')
 ORDER BY w.position
   FOR NO KEY UPDATE OF w
