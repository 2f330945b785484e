-- The fence of a worker's verb, decided by flows.lock_live_attempt (which locks the run, then the
-- step): its outcome ('ok', 'run_not_found', 'run_terminal', 'lease_conflict') and the run's
-- status, with the step's row when the attempt is live. The step is read under its lock
-- (FOR NO KEY UPDATE, which the fence already holds), so the row is the latest committed version,
-- not the one this statement's snapshot saw before the fence waited for the lock.
SELECT f.outcome, f.run_status, s.run_id, s.step_id, s.kind, s.status, s.depends_on,
       s.max_iterations, s.spec, s.attempts, s.suspensions, s.lease_id, s.lease_deadline,
       s.lease_ms, s.worker_id, s.not_before, s.last_reason,
       flows.step_output(s.run_id, s.step_id, s.output, s.output_of) AS output
  FROM flows.lock_live_attempt(:runId, :stepId, :attempt, :leaseId,
                               CAST(:now AS timestamptz)) f
  LEFT JOIN LATERAL (
    SELECT * FROM flows.steps
     WHERE run_id = :runId AND step_id = :stepId AND f.outcome = 'ok'
       FOR NO KEY UPDATE) s ON true
