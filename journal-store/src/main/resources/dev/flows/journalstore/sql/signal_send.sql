-- The rule is the function's (R__journal_functions.sql), shared with plain SQL.
SELECT run_id, name, seq, deduped
  FROM flows.send_signal(:runId, :name, CAST(:payload AS jsonb), :key, CAST(:now AS timestamptz))
