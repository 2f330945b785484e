-- A task note (effect.task): the first creates the step's row, a later one updates its status.
INSERT INTO flows.mcp_task_state (run_id, step_id, surface_path, idempotency_key, task_id, status,
                                  status_message, poll_interval_ms, ttl_ms, protocol_version,
                                  created_attempt, created_at, updated_at)
VALUES (:runId, :stepId, :surfacePath, :idempotencyKey, :taskId, :status, :statusMessage,
        :pollIntervalMs, :ttlMs, :protocolVersion, :attempt, CAST(:now AS timestamptz),
        CAST(:now AS timestamptz))
ON CONFLICT (run_id, step_id) DO UPDATE
   SET status = EXCLUDED.status,
       status_message = EXCLUDED.status_message,
       poll_interval_ms = EXCLUDED.poll_interval_ms,
       ttl_ms = EXCLUDED.ttl_ms,
       updated_at = EXCLUDED.updated_at
