-- Ready steps whose backoff has passed, of the kinds (and routes, when given) asked for, in running runs; rows another
-- claimer holds are skipped, never waited on.
SELECT s.run_id, s.step_id, s.kind, s.status, s.depends_on, s.max_iterations, s.spec,
       s.attempts, s.lease_id, s.lease_deadline, s.lease_ms, s.worker_id, s.not_before,
       s.last_reason, s.output, r.parent_run_id
  FROM flows.steps s
  JOIN flows.runs r ON r.run_id = s.run_id
 WHERE s.status = 'ready'
   AND s.not_before <= CAST(:now AS timestamptz)
   AND CAST(s.kind AS text) = ANY(:kinds)
   AND (:anyRoute OR s.route = ANY(:routes))
   AND r.status = 'running'
 ORDER BY s.not_before, s.created_seq
 LIMIT :capacity
   FOR NO KEY UPDATE OF s SKIP LOCKED
