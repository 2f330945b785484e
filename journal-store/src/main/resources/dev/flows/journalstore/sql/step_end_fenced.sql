-- Ends the live attempt. Fenced by (attempt, lease id, deadline): no row means the lease is lost.
-- An attempt given back (AttemptEnd.usesIteration false: it ended suspended) is counted apart: it
-- does not use up an iteration.
UPDATE flows.steps
   SET status = CAST(:to AS flows.step_status),
       last_reason = CAST(:reason AS flows.completion_reason),
       output = CAST(:output AS jsonb),
       not_before = coalesce(CAST(:notBefore AS timestamptz), not_before),
       suspensions = suspensions + CASE WHEN :givenBack THEN 1 ELSE 0 END,
       lease_id = NULL, lease_deadline = NULL, lease_ms = NULL, worker_id = NULL,
       updated_at = CAST(:now AS timestamptz)
 WHERE run_id = :runId
   AND step_id = :stepId
   AND status = CAST(:from AS flows.step_status)
   AND attempts = :attempt
   AND lease_id = :leaseId
   AND lease_deadline > CAST(:now AS timestamptz)
