-- NO KEY UPDATE: serializes changes to the run without blocking foreign-key checks of inserts
-- (journal entries, steps) that reference it.
SELECT run_id, name, status, parent_run_id, admission_key, spec, spec_hash, tombstone,
       created_at, completed_at, completion_reason, rerun_of
  FROM flows.runs
 WHERE run_id = :runId
   FOR NO KEY UPDATE
