INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on, max_iterations,
                         spec, route, not_before, updated_at)
VALUES (:runId, :stepId, :position, CAST(:kind AS flows.step_kind),
        CAST(:status AS flows.step_status), CAST(:dependsOn AS text[]), :maxIterations,
        CAST(:spec AS jsonb), :route, CAST(:now AS timestamptz), CAST(:now AS timestamptz))
