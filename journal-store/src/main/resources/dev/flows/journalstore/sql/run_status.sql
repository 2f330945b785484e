SELECT status FROM flows.runs WHERE run_id = :runId
