-- A run as RunSnapshot shows it: its row, its queue, and why it waits (the first current note).
SELECT r.run_id, r.name, r.status, r.parent_run_id, r.admission_key, r.spec, r.spec_hash,
       r.tombstone, r.created_at, r.completed_at, r.completion_reason, r.rerun_of,
       r.queue,
       -- A note is current while its step stays ready at the attempt count it was noted at.
       (SELECT n.reason
          FROM flows.step_wait_notes n
          JOIN flows.steps w ON w.run_id = n.run_id AND w.step_id = n.step_id
         WHERE n.run_id = r.run_id AND w.status = 'ready' AND w.attempts = n.attempts
         ORDER BY n.step_id
         LIMIT 1) AS waiting_reason
  FROM flows.runs r
 WHERE r.run_id = :runId
