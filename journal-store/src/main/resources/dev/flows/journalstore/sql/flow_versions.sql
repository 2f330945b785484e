SELECT flow, version, route, runs, oldest_started_at, workers
  FROM flows.versions
 WHERE flow = ?
 ORDER BY oldest_started_at NULLS LAST, version, route
