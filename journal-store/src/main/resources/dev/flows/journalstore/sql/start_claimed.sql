-- One round trip: admit a one-step run and open attempt 1 leased to the caller; with a surface,
-- elect it for that effect too. :now is the test clock's time, NULL for the database clock.
SELECT outcome, existing_run_id, lease_deadline, run_status, step_status
  FROM flows.start_claimed(:runId, :name, :runStatus, :parentRunId, :admissionKey,
                           CAST(:spec AS jsonb), :specHash, :createdBy, :rerunOf, :queue,
                           :stepId, :kind, :route, :runningStatus,
                           :maxIterations, CAST(:stepSpec AS jsonb),
                           :leaseId, :leaseMs, :workerId,
                           :surfacePath, :idempotencyKey,
                           CAST(:spawned AS jsonb), CAST(:started AS jsonb),
                           CAST(:recorded AS jsonb), CAST(:now AS timestamptz))
