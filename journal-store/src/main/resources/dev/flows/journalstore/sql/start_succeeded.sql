-- One round trip: admit a one-step run and its attempt 1 already ended in success with its memos
-- (see flows.start_succeeded). :now is the test clock's time, NULL for the database clock.
SELECT outcome, existing_run_id
  FROM flows.start_succeeded(:runId, :name, :parentRunId, :admissionKey,
                             CAST(:spec AS jsonb), :specHash, :createdBy, :rerunOf, :queue,
                             :stepId, :kind, :route, :maxIterations, CAST(:stepSpec AS jsonb),
                             :leaseId, :leaseMs, :idempotencyKey,
                             CAST(:spawned AS jsonb), CAST(:started AS jsonb),
                             CAST(:surfacePaths AS text[]), CAST(:outputs AS text[]),
                             CAST(:recordedPayloads AS text[]),
                             CAST(:confirmedPayloads AS text[]), CAST(:stepOutput AS jsonb),
                             CAST(:completed AS jsonb), CAST(:runCompleted AS jsonb),
                             CAST(:now AS timestamptz))
