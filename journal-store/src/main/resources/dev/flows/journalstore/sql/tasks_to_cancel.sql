-- Tasks still running on their servers (as last seen, no cancel sent) whose runs have ended: owed
-- a tasks/cancel. Oldest task first; ids in byte order, as the in-memory journal orders them.
SELECT t.run_id, t.step_id, t.surface_path, t.task_id, t.protocol_version
  FROM flows.mcp_task_state t
  JOIN flows.runs r ON r.run_id = t.run_id
 WHERE t.cancel_sent_at IS NULL
   AND t.status IN ('working', 'input_required')
   AND r.status IN ('succeeded', 'failed', 'canceled')
 ORDER BY t.created_at, t.run_id COLLATE "C", t.step_id COLLATE "C"
 LIMIT :limit
