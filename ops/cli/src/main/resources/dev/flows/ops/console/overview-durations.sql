-- The list page's overview: per flow, the runs that ended in the window and the 50th and 99th
-- percentile of their durations in milliseconds. Parameters as overview-buckets.sql has them.
WITH p AS (SELECT ?::timestamptz AS since, ?::double precision AS bucket_s,
                  ?::text AS flow, ?::text AS queue, ?::boolean AS all_runs)
SELECT r.name,
       count(*)::bigint,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM r.duration) * 1000),
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM r.duration) * 1000)
  FROM p, flows.run_activity r
 WHERE r.completed_at >= ?::timestamptz AND (p.flow IS NULL OR r.name = p.flow)
   AND (p.queue IS NULL OR r.queue = p.queue)
   AND (p.all_runs OR r.parent_run_id IS NULL)
 GROUP BY r.name
 ORDER BY r.name
 LIMIT 20
