-- Nothing for a run that has ended: a turn its end cut off may still stream a piece after the
-- end forgot its text (runs_forget_live_text).
INSERT INTO flows.live_text (run_id, step_id, text, updated_at)
SELECT :run_id, :step_id, :text, clock_timestamp()
 WHERE NOT EXISTS (SELECT 1 FROM flows.runs
                    WHERE run_id = :run_id AND completed_at IS NOT NULL)
ON CONFLICT (run_id, step_id) DO UPDATE SET text = EXCLUDED.text, updated_at = EXCLUDED.updated_at
