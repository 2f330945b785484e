UPDATE flows.steps
   SET status = CAST(:to AS flows.step_status),
       not_before = coalesce(CAST(:notBefore AS timestamptz), not_before),
       updated_at = CAST(:now AS timestamptz)
 WHERE run_id = :runId
   AND step_id = :stepId
   AND status = CAST(:from AS flows.step_status)
