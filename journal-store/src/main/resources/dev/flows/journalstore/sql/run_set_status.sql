UPDATE flows.runs
   SET status = CAST(:to AS flows.run_status)
 WHERE run_id = :runId
   AND status = CAST(:from AS flows.run_status)
