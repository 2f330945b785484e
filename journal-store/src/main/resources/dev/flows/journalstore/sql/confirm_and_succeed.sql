-- One round trip: confirm the attempt's election and complete the attempt with success. :now is the
-- test clock's time, NULL for the database clock.
SELECT outcome, run_status, step_status, unblocked
  FROM flows.confirm_and_succeed(:runId, :stepId, :attempt, :leaseId, :surfacePath,
                                 CAST(:confirmOutput AS jsonb), CAST(:stepOutput AS jsonb),
                                 :succeededStatus, CAST(:confirmed AS jsonb),
                                 CAST(:completed AS jsonb), CAST(:runCompleted AS jsonb),
                                 CAST(:now AS timestamptz))
