-- One round trip: admit a one-step run, open attempt 1 leased to the caller, elect it.
SELECT outcome, existing_run_id, lease_deadline
  FROM flows.start_claimed(:runId, :name, :runStatus, :parentRunId, :admissionKey,
                           CAST(:spec AS jsonb), :specHash, :createdBy,
                           :stepId, :kind, :route, :readyStatus, :runningStatus,
                           :maxIterations, CAST(:stepSpec AS jsonb),
                           :leaseId, :leaseMs, :workerId,
                           :surfacePath, :idempotencyKey,
                           CAST(:spawned AS jsonb), CAST(:started AS jsonb),
                           CAST(:recorded AS jsonb))
