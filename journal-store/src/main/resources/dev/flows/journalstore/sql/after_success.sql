-- What a success readies, and whether the run ended (R__journal_functions.sql).
SELECT unblocked, run_done
  FROM flows.after_success(:runId, :runStatus, CAST(:now AS timestamptz))
