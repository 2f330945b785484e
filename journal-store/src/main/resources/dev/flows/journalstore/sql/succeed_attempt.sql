-- One round trip: complete the attempt with success, and the run when it was its last step.
SELECT outcome, run_status, unconfirmed, unblocked
  FROM flows.succeed_attempt(:runId, :stepId, :attempt, :leaseId, CAST(:stepOutput AS jsonb),
                             :succeededStatus, CAST(:completed AS jsonb),
                             CAST(:runCompleted AS jsonb))
