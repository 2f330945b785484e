-- Attempts past their deadline in runs that are still going (a terminal run's attempts are
-- refused run_terminal anyway and are left as they are), the most overdue first, ties in the order
-- the steps were created.
SELECT s.run_id, s.step_id, s.attempts
  FROM flows.steps s
  JOIN flows.runs r ON r.run_id = s.run_id
 WHERE s.status = 'running'
   AND s.lease_deadline <= coalesce(CAST(:now AS timestamptz), clock_timestamp())
   AND r.status IN ('running', 'parked')
 ORDER BY s.lease_deadline, s.created_seq
 LIMIT :limit
