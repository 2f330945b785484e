INSERT INTO flows.schedule_entries
  (at, schedule_name, entry_type, created_by, nominal_at, run_id, payload)
VALUES (CAST(:at AS timestamptz), :name, :type, :by, CAST(:nominal AS timestamptz), :runId,
        CAST(:payload AS jsonb))
