-- An operator vouches that the step's open elections were performed.
UPDATE flows.effect_elections
   SET confirmed = true,
       output = CAST(:output AS jsonb),
       confirmed_at = CAST(:now AS timestamptz)
 WHERE run_id = :runId
   AND step_id = :stepId
   AND NOT confirmed
