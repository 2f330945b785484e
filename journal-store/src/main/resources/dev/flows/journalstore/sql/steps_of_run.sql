SELECT run_id, step_id, kind, status, depends_on, max_iterations, spec, attempts, suspensions,
       lease_id, lease_deadline, lease_ms, worker_id, not_before, last_reason,
       flows.step_output(run_id, step_id, output, output_of) AS output
  FROM flows.steps
 WHERE run_id = :runId
 ORDER BY position
