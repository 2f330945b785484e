INSERT INTO flows.live_text (run_id, step_id, text, updated_at)
VALUES (:run_id, :step_id, :text, clock_timestamp())
ON CONFLICT (run_id, step_id) DO UPDATE SET text = EXCLUDED.text, updated_at = EXCLUDED.updated_at
