-- Renews many leases in one statement: each exactly as step_heartbeat does (fenced by run, step,
-- attempt, lease id, a running step of a running or parked run, and a deadline not yet passed by
-- the database clock, read once for all). One row per lease asked about: lease_deadline is set
-- when it was renewed; otherwise run_status (NULL: no such run) says why it was refused.
WITH now AS (SELECT clock_timestamp() AS t),
     asked AS (
       SELECT DISTINCT a.run_id, a.step_id, a.attempt, a.lease_id
         FROM unnest(CAST(:runIds AS text[]), CAST(:stepIds AS text[]),
                     CAST(:attempts AS int[]), CAST(:leaseIds AS text[]))
              AS a(run_id, step_id, attempt, lease_id)),
     -- Rows locked in (run_id, step_id) order before any is updated, the order the f.step group
     -- commit locks in too: a renewal of many leases and a batch of memos never deadlock.
     locked AS MATERIALIZED (
       SELECT s.run_id, s.step_id
         FROM flows.steps s
         JOIN asked a ON s.run_id = a.run_id AND s.step_id = a.step_id
        ORDER BY s.run_id, s.step_id
          FOR NO KEY UPDATE OF s),
     renewed AS (
       UPDATE flows.steps s
          SET lease_deadline = now.t + s.lease_ms * interval '1 millisecond',
              updated_at = now.t
         FROM asked a, now, flows.runs r, locked l
        WHERE l.run_id = s.run_id
          AND l.step_id = s.step_id
          AND s.run_id = a.run_id
          AND s.step_id = a.step_id
          AND s.status = 'running'
          AND s.attempts = a.attempt
          AND s.lease_id = a.lease_id
          AND s.lease_deadline > now.t
          AND r.run_id = s.run_id
          AND r.status IN ('running', 'parked')
       RETURNING s.run_id, s.step_id, s.attempts, s.lease_id, s.lease_deadline)
SELECT a.run_id, a.step_id, a.attempt, a.lease_id, n.lease_deadline, r.status AS run_status
  FROM asked a
  -- Joined on the whole token: a forged token for a renewed step must not read as renewed.
  LEFT JOIN renewed n ON n.run_id = a.run_id AND n.step_id = a.step_id
                     AND n.attempts = a.attempt AND n.lease_id = a.lease_id
  LEFT JOIN flows.runs r ON r.run_id = a.run_id
