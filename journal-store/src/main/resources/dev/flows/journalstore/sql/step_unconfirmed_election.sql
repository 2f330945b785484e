SELECT surface_path, idempotency_key
  FROM flows.effect_elections
 WHERE run_id = :runId
   AND step_id = :stepId
   AND NOT confirmed
 ORDER BY elected_seq
 LIMIT 1
