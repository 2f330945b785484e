-- One batch of retention (flows.prune_runs in R__journal_functions.sql): the audit record, then
-- the rows of the chosen run trees.
SELECT pruned, root_ids, run_count, entry_count
  FROM flows.prune_runs(CAST(:olderThan AS interval), :by, :limit, :dryRun,
                        CAST(:now AS timestamptz))
