SELECT attempt, idempotency_key, confirmed, output
  FROM flows.effect_elections
 WHERE run_id = :runId
   AND step_id = :stepId
   AND surface_path = :surfacePath
   FOR NO KEY UPDATE
