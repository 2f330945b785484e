-- A run id canceled before it started: a canceled run with no steps, so a later start is refused.
INSERT INTO flows.runs (run_id, name, status, parent_run_id, admission_key, spec, spec_hash,
                        created_by, tombstone, created_at, completed_at, completion_reason)
VALUES (:runId, '', CAST(:status AS flows.run_status), NULL, 'tombstone:' || :runId,
        'null', '', 'cancel', true, CAST(:now AS timestamptz), CAST(:now AS timestamptz),
        'canceled')
ON CONFLICT DO NOTHING
