DELETE FROM flows.workers WHERE last_seen < clock_timestamp() - make_interval(secs => ? / 1000.0)
