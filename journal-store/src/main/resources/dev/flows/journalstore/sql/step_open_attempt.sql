UPDATE flows.steps
   SET status = CAST(:to AS flows.step_status),
       attempts = :attempt,
       lease_id = :leaseId,
       lease_deadline = CAST(:leaseDeadline AS timestamptz),
       lease_ms = :leaseMs,
       worker_id = :workerId,
       updated_at = CAST(:now AS timestamptz)
 WHERE run_id = :runId
   AND step_id = :stepId
   AND status = CAST(:from AS flows.step_status)
   AND attempts = :attempt - 1
