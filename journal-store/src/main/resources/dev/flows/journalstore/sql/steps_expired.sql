SELECT run_id, step_id, attempts
  FROM flows.steps
 WHERE status = 'running'
   AND lease_deadline <= clock_timestamp()
 ORDER BY lease_deadline
 LIMIT :limit
