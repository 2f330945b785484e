DELETE FROM flows.workers WHERE worker_id = ?
