SELECT definition, paused, next_tick_at, pending, last_run_id, created_at, updated_at
  FROM flows.schedules
