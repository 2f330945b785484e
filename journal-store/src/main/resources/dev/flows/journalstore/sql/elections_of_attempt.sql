SELECT surface_path, idempotency_key, confirmed
  FROM flows.effect_elections
 WHERE run_id = :runId
   AND step_id = :stepId
   AND attempt = :attempt
 ORDER BY elected_seq
