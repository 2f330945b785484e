-- A concurrent create of the same name inserts nothing; the change is then made again on its row.
INSERT INTO flows.schedules
  (name, flow, definition, paused, next_tick_at, due_at, pending, last_run_id, created_at,
   updated_at)
VALUES (:name, :flow, CAST(:definition AS jsonb), :paused, CAST(:nextTick AS timestamptz),
        CAST(:dueAt AS timestamptz), CAST(:pending AS jsonb), :lastRunId,
        CAST(:createdAt AS timestamptz), CAST(:updatedAt AS timestamptz))
ON CONFLICT (name) DO NOTHING
