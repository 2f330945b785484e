-- Renews many leases in one statement: each exactly as step_heartbeat does (fenced by run, step,
-- attempt, lease id, a running step of a running or parked run, and a deadline not yet passed by
-- the journal's clock, read once for all: :now when a test clock gives one, else the database's).
-- Answers one 'renewed' row per renewed lease (with its new deadline) and one 'asked' row per lease
-- asked about (with its run's status, NULL: no such run), from which the caller tells why a lease
-- that was not renewed was refused.
-- No two CTEs are joined to each other: the statement is prepared, and a generic plan estimates an
-- unnested array at a hundred rows, so it would join CTE to CTE in nested loops, quadratic in the
-- leases. Every join here goes to a table by its primary key.
WITH now AS (SELECT coalesce(CAST(:now AS timestamptz), clock_timestamp()) AS t),
     asked AS MATERIALIZED (
       SELECT DISTINCT a.run_id, a.step_id, a.attempt, a.lease_id
         FROM unnest(CAST(:runIds AS text[]), CAST(:stepIds AS text[]),
                     CAST(:attempts AS int[]), CAST(:leaseIds AS text[]))
              AS a(run_id, step_id, attempt, lease_id)),
     -- Rows locked in (run_id, step_id) order before any is updated, the order the f.step group
     -- commit locks in too: a renewal of many leases and a batch of memos never deadlock. The
     -- token rides along, so the update needs no second look at what was asked.
     locked AS MATERIALIZED (
       SELECT s.run_id, s.step_id, a.attempt, a.lease_id
         FROM asked a
         JOIN flows.steps s ON s.run_id = a.run_id AND s.step_id = a.step_id
        ORDER BY s.run_id, s.step_id
          FOR NO KEY UPDATE OF s),
     renewed AS (
       UPDATE flows.steps s
          SET lease_deadline = now.t + s.lease_ms * interval '1 millisecond',
              updated_at = now.t
         FROM locked l, now, flows.runs r
        WHERE s.run_id = l.run_id
          AND s.step_id = l.step_id
          AND s.status = 'running'
          AND s.attempts = l.attempt
          AND s.lease_id = l.lease_id
          AND s.lease_deadline > now.t
          AND r.run_id = s.run_id
          AND r.status IN ('running', 'parked')
       RETURNING s.run_id, s.step_id, s.attempts, s.lease_id, s.lease_deadline)
SELECT 'renewed' AS kind, n.run_id, n.step_id, n.attempts AS attempt, n.lease_id,
       n.lease_deadline, CAST(NULL AS flows.run_status) AS run_status
  FROM renewed n
UNION ALL
SELECT 'asked', a.run_id, a.step_id, a.attempt, a.lease_id, NULL, r.status
  FROM asked a
  LEFT JOIN flows.runs r ON r.run_id = a.run_id
