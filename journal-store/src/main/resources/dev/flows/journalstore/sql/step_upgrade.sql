-- A run moved to another version of its flow (Journal.upgradeRun): its body step's spec, whose
-- instruction is all that changes (flows.check_step_identity allows nothing else), and its route.
UPDATE flows.steps
   SET spec = CAST(:spec AS jsonb),
       route = :route,
       updated_at = CAST(:now AS timestamptz)
 WHERE run_id = :runId
   AND step_id = :stepId
