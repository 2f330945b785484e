-- One round trip: complete the attempt with success, and the run when it was its last step. :now
-- is the test clock's time, NULL for the database clock.
SELECT outcome, run_status, unconfirmed, unblocked, step_status
  FROM flows.succeed_attempt(:runId, :stepId, :attempt, :leaseId, CAST(:stepOutput AS jsonb),
                             :succeededStatus, CAST(:completed AS jsonb),
                             CAST(:runCompleted AS jsonb), CAST(:now AS timestamptz))
