-- A parked step whose effect an operator says did happen: it succeeds with that output.
UPDATE flows.steps
   SET status = CAST(:to AS flows.step_status),
       output = CAST(:output AS jsonb),
       last_reason = 'success',
       updated_at = CAST(:now AS timestamptz)
 WHERE run_id = :runId
   AND step_id = :stepId
   AND status = CAST(:from AS flows.step_status)
