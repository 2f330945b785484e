-- One round trip: admit a one-step run already claimed and end its attempt 1 in success with its
-- memos (see flows.start_succeeded). :now is the test clock's time, NULL for the database clock.
SELECT outcome, existing_run_id, admitted_run_status, admitted_step_status, run_status,
       unconfirmed, unblocked, step_status
  FROM flows.start_succeeded(:runId, :name, :runStatus, :parentRunId, :admissionKey,
                             CAST(:spec AS jsonb), :specHash, :createdBy, :rerunOf, :queue,
                             :stepId, :kind, :route, :runningStatus,
                             :maxIterations, CAST(:stepSpec AS jsonb),
                             :leaseId, :leaseMs, :workerId, :idempotencyKey,
                             CAST(:spawned AS jsonb), CAST(:started AS jsonb), :attempt,
                             CAST(:surfacePaths AS text[]), CAST(:outputs AS text[]),
                             CAST(:recordedPayloads AS text[]),
                             CAST(:confirmedPayloads AS text[]), CAST(:stepOutput AS jsonb),
                             :succeededStatus, CAST(:completed AS jsonb),
                             CAST(:runCompleted AS jsonb), CAST(:now AS timestamptz))
