-- Fenced: renews only the live lease of this attempt; no row means the lease is lost.
UPDATE flows.steps
   SET lease_deadline = CAST(:now AS timestamptz) + lease_ms * interval '1 millisecond',
       updated_at = CAST(:now AS timestamptz)
 WHERE run_id = :runId
   AND step_id = :stepId
   AND status = 'running'
   AND attempts = :attempt
   AND lease_id = :leaseId
   AND lease_deadline > CAST(:now AS timestamptz)
RETURNING lease_deadline
