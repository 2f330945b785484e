SELECT EXISTS (SELECT 1
                 FROM flows.steps
                WHERE run_id = :runId
                  AND status <> 'succeeded')
