-- A claim in one round trip, autocommit (see flows.claim_open): the ready steps a worker may take,
-- each with its next attempt opened, leased and journaled, in pick order. :now is the test clock's
-- time, NULL for the database clock.
SELECT run_id, step_id, kind, status, depends_on, max_iterations, spec, attempts, suspensions,
       lease_id, lease_deadline, lease_ms, worker_id, not_before, last_reason, output,
       parent_run_id, new_attempt, new_lease_id, new_deadline, new_lease_ms, idempotency_key,
       new_status
  FROM flows.claim_open(CAST(:kinds AS text[]), CAST(:anyRoute AS boolean),
                        CAST(:routes AS text[]), CAST(:routePrefixes AS text[]),
                        CAST(:anyQueue AS boolean), CAST(:queues AS text[]),
                        CAST(:capacity AS integer), CAST(:defaultLeaseMs AS bigint),
                        CAST(:runningStatus AS text), CAST(:workerId AS text),
                        CAST(:now AS timestamptz))
