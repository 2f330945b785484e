-- flows.succeed_after_memos takes p_notify_run_end (as flows.succeed_attempt does), so
-- flows.start_succeeded, which admits a run and ends it in one statement, can leave the end of a
-- run nobody has seen yet unnotified. A function's signature changes only by dropping it here;
-- R__journal_functions.sql defines the new one.
DROP FUNCTION IF EXISTS flows.succeed_after_memos(
    text, text, integer, text, text[], text, text[], text[], text[], jsonb, text, jsonb, jsonb,
    timestamptz);
