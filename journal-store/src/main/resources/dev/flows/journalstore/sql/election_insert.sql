INSERT INTO flows.effect_elections (run_id, step_id, surface_path, attempt, idempotency_key,
                                    recorded_at)
VALUES (:runId, :stepId, :surfacePath, :attempt, :idempotencyKey, CAST(:now AS timestamptz))
