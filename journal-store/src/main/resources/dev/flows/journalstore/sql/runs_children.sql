SELECT run_id
  FROM flows.runs
 WHERE parent_run_id = :parentRunId
 ORDER BY created_seq
