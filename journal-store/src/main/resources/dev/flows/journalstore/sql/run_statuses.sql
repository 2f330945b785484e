SELECT run_id, status FROM flows.runs WHERE run_id = ANY (:runIds)
