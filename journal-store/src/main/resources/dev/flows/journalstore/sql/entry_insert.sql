INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
VALUES (CAST(:at AS timestamptz), :runId, CAST(:type AS flows.entry_type), :stepId, :attempt,
        CAST(:payload AS jsonb))
