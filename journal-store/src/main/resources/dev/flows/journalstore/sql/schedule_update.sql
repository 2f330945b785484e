UPDATE flows.schedules
   SET flow = :flow,
       definition = CAST(:definition AS jsonb),
       paused = :paused,
       next_tick_at = CAST(:nextTick AS timestamptz),
       due_at = CAST(:dueAt AS timestamptz),
       pending = CAST(:pending AS jsonb),
       last_run_id = :lastRunId,
       updated_at = CAST(:updatedAt AS timestamptz)
 WHERE name = :name
