-- One round trip: admit a one-step run, open attempt 1 leased to the caller, elect it. :now is the
-- test clock's time, NULL for the database clock.
SELECT outcome, existing_run_id, lease_deadline, run_status, step_status
  FROM flows.start_claimed(:runId, :name, :runStatus, :parentRunId, :admissionKey,
                           CAST(:spec AS jsonb), :specHash, :createdBy,
                           :stepId, :kind, :route, :runningStatus,
                           :maxIterations, CAST(:stepSpec AS jsonb),
                           :leaseId, :leaseMs, :workerId,
                           :surfacePath, :idempotencyKey,
                           CAST(:spawned AS jsonb), CAST(:started AS jsonb),
                           CAST(:recorded AS jsonb), CAST(:now AS timestamptz))
