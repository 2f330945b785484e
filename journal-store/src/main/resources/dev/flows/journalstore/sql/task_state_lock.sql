-- A step's task row, locked: its notes are decided against it and written in one transaction.
SELECT surface_path, idempotency_key, task_id, status, status_message, poll_interval_ms, ttl_ms,
       protocol_version, created_attempt, created_at, updated_at, cancel_sent_at, cancel_reason
  FROM flows.mcp_task_state
 WHERE run_id = :runId AND step_id = :stepId
   FOR UPDATE
