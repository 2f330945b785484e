DELETE FROM flows.live_text WHERE run_id = :run_id AND step_id = :step_id
