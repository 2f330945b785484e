INSERT INTO flows.workers AS w
       (worker_id, host, pid, started_at, last_seen, refresh_every, queues, routes, route_prefixes)
VALUES (?, ?, ?, clock_timestamp(), clock_timestamp(), make_interval(secs => ? / 1000.0),
        ?::text[], ?::text[], ?::text[])
ON CONFLICT (worker_id) DO UPDATE
   SET last_seen = clock_timestamp(),
       refresh_every = EXCLUDED.refresh_every,
       queues = EXCLUDED.queues,
       routes = EXCLUDED.routes,
       route_prefixes = EXCLUDED.route_prefixes
