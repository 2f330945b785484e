SELECT step_id, text FROM flows.live_text WHERE run_id = :run_id ORDER BY step_id
