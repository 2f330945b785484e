-- A failed or parked run goes back to work; a failed run is no longer completed.
UPDATE flows.runs
   SET status = CAST(:to AS flows.run_status),
       completed_at = NULL,
       completion_reason = NULL
 WHERE run_id = :runId
   AND status = CAST(:from AS flows.run_status)
