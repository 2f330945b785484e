-- A step's task row as it stands, not locked: a lease expiry decides against it while it holds
-- the step's lock, which every note of the step's attempt takes first.
SELECT surface_path, idempotency_key, task_id, status, status_message, poll_interval_ms, ttl_ms,
       protocol_version, created_attempt, created_at, updated_at, cancel_sent_at, cancel_reason
  FROM flows.mcp_task_state
 WHERE run_id = :runId AND step_id = :stepId
