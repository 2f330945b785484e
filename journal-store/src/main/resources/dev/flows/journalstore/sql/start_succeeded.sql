-- One round trip for a batch of runs: each admitted with its attempt 1 already ended in success
-- with its memos (see flows.start_succeeded). Arrays of runs hold run k at element k; a memo and a
-- journal entry name their run's k. :now is the test clock's time, NULL for the database clock.
SELECT run, outcome, existing_run_id
  FROM flows.start_succeeded(CAST(:runIds AS text[]), CAST(:names AS text[]),
                             CAST(:parentRunIds AS text[]), CAST(:admissionKeys AS text[]),
                             CAST(:specs AS text[]), CAST(:specHashes AS text[]),
                             CAST(:createdBy AS text[]), CAST(:rerunOf AS text[]),
                             CAST(:queues AS text[]), CAST(:stepIds AS text[]),
                             CAST(:kinds AS text[]), CAST(:routes AS text[]),
                             CAST(:maxIterations AS integer[]), CAST(:stepSpecs AS text[]),
                             CAST(:leaseMs AS bigint[]), CAST(:keys AS text[]),
                             CAST(:stepOutputs AS text[]), CAST(:memoRuns AS integer[]),
                             CAST(:surfacePaths AS text[]), CAST(:outputs AS text[]),
                             CAST(:entryRuns AS integer[]), CAST(:entryTypes AS text[]),
                             CAST(:payloads AS text[]), CAST(:now AS timestamptz))
