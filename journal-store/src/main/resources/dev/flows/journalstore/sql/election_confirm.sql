UPDATE flows.effect_elections
   SET confirmed = true,
       output = CAST(:output AS jsonb),
       confirmed_at = CAST(:now AS timestamptz)
 WHERE run_id = :runId
   AND step_id = :stepId
   AND surface_path = :surfacePath
   AND attempt = :attempt
   AND NOT confirmed
