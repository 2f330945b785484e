UPDATE flows.runs
   SET status = CAST(:to AS flows.run_status),
       completed_at = CAST(:now AS timestamptz),
       completion_reason = CAST(:reason AS flows.run_completion_reason)
 WHERE run_id = :runId
   AND status = CAST(:from AS flows.run_status)
