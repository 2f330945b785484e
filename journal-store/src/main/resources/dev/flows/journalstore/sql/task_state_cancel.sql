-- tasks/cancel was sent for the step's task (effect.task.cancel).
UPDATE flows.mcp_task_state
   SET cancel_sent_at = CAST(:now AS timestamptz), cancel_reason = :reason
 WHERE run_id = :runId AND step_id = :stepId AND cancel_sent_at IS NULL
