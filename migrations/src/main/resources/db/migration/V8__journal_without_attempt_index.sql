-- journal_by_attempt (run_id, step_id, attempt) served no query: every read of the journal goes by
-- run (journal_by_run, in seq order) and filters there. Each f.step memo journals two entries, so
-- the index cost two index insertions (and their WAL) per step for nothing.
DROP INDEX flows.journal_by_attempt;
