UPDATE flows.signal_mailbox
   SET delivered_at = CAST(:now AS timestamptz), delivered_step_id = :stepId,
       delivered_attempt = :attempt, delivered_surface = :surfacePath
 WHERE run_id = :runId AND name = :name AND seq = :seq AND delivered_at IS NULL
