-- A claim in one statement (one round trip, autocommit): the ready steps a worker may take (kinds,
-- routes or route prefixes, queues, running runs, backoff passed by the journal's clock: :now when
-- a test clock gives one, else the database's; rows another claimer holds skipped, never waited on)
-- each get their next attempt, leased to the worker, and step.attempt.started journaled, in pick
-- order. The lease id and idempotency key are derived here as dev.flows.kernel.keys.Keys derives
-- them (the caller checks they agree); a step's lease is its spec's leaseMs, else the request's
-- default. Answers each claimed step as it was when picked, with the attempt opened for it.
WITH clock AS MATERIALIZED (
  SELECT coalesce(CAST(:now AS timestamptz), clock_timestamp()) AS now
),
picked AS MATERIALIZED (
  SELECT s.run_id, s.step_id, s.kind, s.status, s.depends_on, s.max_iterations, s.spec,
         s.attempts, s.suspensions, s.lease_id, s.lease_deadline, s.lease_ms, s.worker_id,
         s.not_before,
         s.last_reason,
         flows.step_output(s.run_id, s.step_id, s.output, s.output_of) AS output, s.created_seq,
         r.parent_run_id, (SELECT now FROM clock) AS now
    FROM flows.steps s
    JOIN flows.runs r ON r.run_id = s.run_id
   WHERE s.status = 'ready'
     -- A subquery, so "now" is a parameter of the scan: steps_claimable is read from its start and
     -- stops at the first step still backing off, however many are.
     AND s.not_before <= (SELECT now FROM clock)
     AND CAST(s.kind AS text) = ANY(CAST(:kinds AS text[]))
     AND (:anyRoute OR s.route = ANY(CAST(:routes AS text[]))
          OR s.route ^@ ANY(CAST(:routePrefixes AS text[])))
     AND r.status = 'running'
     AND (:anyQueue OR r.queue = ANY(CAST(:queues AS text[])))
   ORDER BY s.not_before, s.created_seq
   LIMIT :capacity
     FOR NO KEY UPDATE OF s SKIP LOCKED
),
keyed AS (
  SELECT p.*,
         p.attempts + 1 AS new_attempt,
         coalesce(CAST(p.spec ->> 'leaseMs' AS bigint), :defaultLeaseMs) AS new_lease_ms,
         'lease_' || left(encode(sha256(convert_to(p.run_id, 'UTF8') || decode('00', 'hex')
                                        || convert_to(p.step_id, 'UTF8') || decode('00', 'hex')
                                        || convert_to(CAST(p.attempts + 1 AS text), 'UTF8')),
                                 'hex'), 32) AS new_lease_id,
         encode(sha256(convert_to(p.run_id, 'UTF8') || decode('00', 'hex')
                       || convert_to(p.step_id, 'UTF8')), 'hex') AS idempotency_key
    FROM picked p
),
leased AS MATERIALIZED (
  SELECT k.*, k.now + k.new_lease_ms * interval '1 millisecond' AS new_deadline
    FROM keyed k
),
opened AS (
  UPDATE flows.steps s
     SET status = CAST(:runningStatus AS flows.step_status),
         attempts = l.new_attempt,
         lease_id = l.new_lease_id,
         lease_deadline = l.new_deadline,
         lease_ms = l.new_lease_ms,
         worker_id = :workerId,
         updated_at = l.now
    FROM leased l
   WHERE s.run_id = l.run_id
     AND s.step_id = l.step_id
     AND s.status = 'ready'
     AND s.attempts = l.attempts
  RETURNING s.run_id, s.step_id, CAST(s.status AS text) AS new_status
),
journaled AS (
  INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
  SELECT l.now, l.run_id, 'step.attempt.started', l.step_id, l.new_attempt,
         jsonb_build_object('stepKind', l.kind, 'idempotencyKey', l.idempotency_key,
                            'leaseId', l.new_lease_id,
                            'leaseDeadline', flows.iso_instant(l.new_deadline),
                            'workerId', CAST(:workerId AS text), 'stepId', l.step_id,
                            'attempt', l.new_attempt)
    FROM leased l
    JOIN opened o ON o.run_id = l.run_id AND o.step_id = l.step_id
   ORDER BY l.not_before, l.created_seq
  RETURNING 1
)
SELECT l.run_id, l.step_id, l.kind, l.status, l.depends_on, l.max_iterations, l.spec, l.attempts,
       l.suspensions, l.lease_id, l.lease_deadline, l.lease_ms, l.worker_id, l.not_before,
       l.last_reason,
       l.output, l.parent_run_id, l.new_attempt, l.new_lease_id, l.new_deadline, l.new_lease_ms,
       l.idempotency_key, o.new_status
  FROM leased l
  JOIN opened o ON o.run_id = l.run_id AND o.step_id = l.step_id
 ORDER BY l.not_before, l.created_seq
