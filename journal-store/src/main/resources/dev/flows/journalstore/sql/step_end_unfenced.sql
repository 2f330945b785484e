-- Ends an attempt on the journal's own authority (cancel, lease expiry): fenced by attempt only.
-- An attempt given back (AttemptEnd.usesIteration false: it expired while its task was awaited)
-- is counted apart: it does not use up an iteration.
UPDATE flows.steps
   SET status = CAST(:to AS flows.step_status),
       last_reason = CAST(:reason AS flows.completion_reason),
       not_before = coalesce(CAST(:notBefore AS timestamptz), not_before),
       suspensions = suspensions + CASE WHEN :givenBack THEN 1 ELSE 0 END,
       lease_id = NULL, lease_deadline = NULL, lease_ms = NULL, worker_id = NULL,
       updated_at = CAST(:now AS timestamptz)
 WHERE run_id = :runId
   AND step_id = :stepId
   AND status = CAST(:from AS flows.step_status)
   AND attempts = :attempt
