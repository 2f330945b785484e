-- The list page's overview: per bucket of the window, the runs that started in it (and of those,
-- the ones parked now and the ones not ended yet: running or waiting), and the runs that ended in
-- it, succeeded or failed. Parameters: the window's start, the bucket in seconds, a flow or NULL,
-- a queue or NULL, whether child runs count too; then the window's start again for each range
-- (a parameter of its own, not p's column, so the planner reads the range by its index).
WITH p AS (SELECT ?::timestamptz AS since, ?::double precision AS bucket_s,
                  ?::text AS flow, ?::text AS queue, ?::boolean AS all_runs)
SELECT x.bucket,
       sum(x.started)::bigint,
       sum(x.succeeded)::bigint,
       sum(x.failed)::bigint,
       sum(x.parked)::bigint,
       sum(x.waiting)::bigint
  FROM (SELECT floor(extract(epoch FROM r.created_at - p.since) / p.bucket_s)::int AS bucket,
               1 AS started, 0 AS succeeded, 0 AS failed,
               (r.status = 'parked')::int AS parked, (r.status = 'running')::int AS waiting
          FROM p, flows.run_activity r
         WHERE r.created_at >= ?::timestamptz AND (p.flow IS NULL OR r.name = p.flow)
           AND (p.queue IS NULL OR r.queue = p.queue)
           AND (p.all_runs OR r.parent_run_id IS NULL)
        UNION ALL
        SELECT floor(extract(epoch FROM r.completed_at - p.since) / p.bucket_s)::int,
               0, (r.status = 'succeeded')::int, (r.status = 'failed')::int, 0, 0
          FROM p, flows.run_activity r
         WHERE r.completed_at >= ?::timestamptz AND (p.flow IS NULL OR r.name = p.flow)
           AND (p.queue IS NULL OR r.queue = p.queue)
           AND (p.all_runs OR r.parent_run_id IS NULL)) x
 GROUP BY x.bucket
 ORDER BY x.bucket
