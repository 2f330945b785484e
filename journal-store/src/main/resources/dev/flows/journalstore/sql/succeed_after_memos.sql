-- One round trip: journal the attempt's last memos and complete it with success (see
-- flows.succeed_after_memos). :now is the test clock's time, NULL for the database clock.
SELECT outcome, run_status, unconfirmed, unblocked, step_status
  FROM flows.succeed_after_memos(:runId, :stepId, :attempt, :leaseId,
                                 CAST(:surfacePaths AS text[]), :idempotencyKey,
                                 CAST(:outputs AS text[]), CAST(:recordedPayloads AS text[]),
                                 CAST(:confirmedPayloads AS text[]), CAST(:stepOutput AS jsonb),
                                 :succeededStatus, CAST(:completed AS jsonb),
                                 CAST(:runCompleted AS jsonb), CAST(:now AS timestamptz))
