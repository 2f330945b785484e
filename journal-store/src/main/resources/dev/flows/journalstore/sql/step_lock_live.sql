-- The step a lease names, locked, with its run's status (a fenced verb on a terminal run is
-- refused run_terminal).
SELECT s.run_id, s.step_id, s.kind, s.status, s.depends_on, s.max_iterations, s.spec,
       s.attempts, s.suspensions, s.lease_id, s.lease_deadline, s.lease_ms, s.worker_id,
       s.not_before, s.last_reason, s.output, r.status AS run_status
  FROM flows.steps s
  JOIN flows.runs r ON r.run_id = s.run_id
 WHERE s.run_id = :runId
   AND s.step_id = :stepId
   FOR NO KEY UPDATE OF s
