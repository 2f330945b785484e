SELECT seq, at, entry_type, payload
  FROM flows.journal_entries
 WHERE run_id = :runId
 ORDER BY seq
