-- DO NOTHING: a concurrent start with the same run id or admission key wins; the caller re-reads.
-- A child's queue is set to its parent's by the runs_inherit_queue trigger (R__journal_functions).
INSERT INTO flows.runs (run_id, name, status, parent_run_id, admission_key, spec, spec_hash,
                        created_by, rerun_of, created_at, queue)
VALUES (:runId, :name, CAST(:status AS flows.run_status), :parentRunId, :admissionKey,
        CAST(:spec AS jsonb), :specHash, :createdBy, :rerunOf, CAST(:now AS timestamptz), :queue)
ON CONFLICT DO NOTHING
