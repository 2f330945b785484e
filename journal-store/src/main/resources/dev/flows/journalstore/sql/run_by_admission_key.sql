SELECT run_id, name, status, parent_run_id, admission_key, spec, spec_hash, tombstone,
       created_at, completed_at, completion_reason, rerun_of
  FROM flows.runs
 WHERE admission_key = :admissionKey
