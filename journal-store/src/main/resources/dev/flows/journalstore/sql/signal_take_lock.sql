-- The oldest signal of this name not yet delivered to the run, locked until delivered.
SELECT seq, payload
  FROM flows.signal_mailbox
 WHERE run_id = :runId AND name = :name AND delivered_at IS NULL
 ORDER BY seq
 LIMIT 1
   FOR UPDATE
