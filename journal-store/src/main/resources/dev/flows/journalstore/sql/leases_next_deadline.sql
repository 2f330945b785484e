-- Milliseconds from the journal's now (:now when a test clock gives one, else the database's) to
-- the earliest lease deadline of a running attempt in a run that is still going (negative when
-- already past): the steps_leased index, in order, so this reads one row unless terminal runs hold
-- running attempts ahead of it.
SELECT EXTRACT(EPOCH FROM (s.lease_deadline - coalesce(CAST(:now AS timestamptz), clock_timestamp()))) * 1000 AS until_ms
  FROM flows.steps s
  JOIN flows.runs r ON r.run_id = s.run_id
 WHERE s.status = 'running'
   AND r.status IN ('running', 'parked')
 ORDER BY s.lease_deadline
 LIMIT 1
