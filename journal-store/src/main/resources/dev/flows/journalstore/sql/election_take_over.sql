UPDATE flows.effect_elections
   SET attempt = :attempt,
       recorded_at = CAST(:now AS timestamptz)
 WHERE run_id = :runId
   AND step_id = :stepId
   AND surface_path = :surfacePath
   AND NOT confirmed
   AND attempt < :attempt
