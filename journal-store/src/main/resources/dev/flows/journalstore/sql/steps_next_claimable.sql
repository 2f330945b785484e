-- Milliseconds from the journal's now (:now when a test clock gives one, else the database's) to
-- the earliest backoff still ahead of a ready step the claimer could take (its kinds, routes and
-- queues, a running run): the steps_claimable index, from now onwards.
WITH now AS (SELECT coalesce(CAST(:now AS timestamptz), clock_timestamp()) AS t)
SELECT EXTRACT(EPOCH FROM (s.not_before - now.t)) * 1000 AS until_ms
  FROM flows.steps s
  JOIN flows.runs r ON r.run_id = s.run_id
  CROSS JOIN now
 WHERE s.status = 'ready'
   AND s.not_before > now.t
   AND CAST(s.kind AS text) = ANY(:kinds)
   AND (:anyRoute OR s.route = ANY(:routes) OR s.route ^@ ANY(:routePrefixes))
   AND r.status = 'running'
   AND (:anyQueue OR r.queue = ANY(:queues))
 ORDER BY s.not_before, s.created_seq
 LIMIT 1
