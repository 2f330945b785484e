-- What every run admitted with its end paid, found under a steady stream of short runs.
--
-- 1. Shapes checked by a regular expression with a counted repetition ({0,199}, {64}): Postgres's
-- regex engine expands the count into that many states, and matching a 40-character run id took
-- about 30 us, about a twentieth of the database's CPU per run. The same shapes, as a length bound
-- and an uncounted class (the classes are ASCII, so characters are bytes), match in under 1 us.
-- The constraints keep their names; NOT VALID then VALIDATE checks the rows already there without
-- blocking writers.
ALTER TABLE flows.runs
  DROP CONSTRAINT runs_run_id_check,
  ADD CONSTRAINT runs_run_id_check
    CHECK (length(run_id) <= 200 AND run_id ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]*$') NOT VALID,
  DROP CONSTRAINT runs_queue_name,
  ADD CONSTRAINT runs_queue_name
    CHECK (length(queue) <= 100 AND queue ~ '^[A-Za-z0-9][A-Za-z0-9_.-]*$') NOT VALID;
ALTER TABLE flows.runs VALIDATE CONSTRAINT runs_run_id_check;
ALTER TABLE flows.runs VALIDATE CONSTRAINT runs_queue_name;

ALTER TABLE flows.effect_elections
  DROP CONSTRAINT effect_elections_idempotency_key_check,
  ADD CONSTRAINT effect_elections_idempotency_key_check
    CHECK (length(idempotency_key) = 64 AND idempotency_key ~ '^[0-9a-f]+$') NOT VALID;
ALTER TABLE flows.effect_elections VALIDATE CONSTRAINT effect_elections_idempotency_key_check;

ALTER TABLE flows.signal_mailbox
  DROP CONSTRAINT signal_mailbox_name_check,
  ADD CONSTRAINT signal_mailbox_name_check
    CHECK (length(name) <= 100 AND name ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]*$') NOT VALID;
ALTER TABLE flows.signal_mailbox VALIDATE CONSTRAINT signal_mailbox_name_check;

-- 2. Payload columns are opaque documents: no query filters or joins on their contents, so the
-- planner never uses their statistics. Gathering them is not free: ANALYZE sorts a sample of each
-- jsonb column by jsonb comparison, and autovacuum re-analyzes these tables as runs pour in, which
-- took about a sixth of the database's CPU. A target of 0 makes ANALYZE skip the column; the
-- tables' other columns keep their statistics.
ALTER TABLE flows.runs ALTER COLUMN spec SET STATISTICS 0;
ALTER TABLE flows.steps ALTER COLUMN spec SET STATISTICS 0;
ALTER TABLE flows.steps ALTER COLUMN output SET STATISTICS 0;
ALTER TABLE flows.journal_entries ALTER COLUMN payload SET STATISTICS 0;
ALTER TABLE flows.effect_elections ALTER COLUMN output SET STATISTICS 0;
ALTER TABLE flows.signal_mailbox ALTER COLUMN payload SET STATISTICS 0;

-- 3. flows.start_succeeded takes a batch of runs (arrays, one element per run) instead of one run:
-- R__journal_functions.sql defines it in its new form.
DROP FUNCTION IF EXISTS flows.start_succeeded(
  text, text, text, text, jsonb, text, text, text, text, text, text, text, integer, jsonb, text,
  bigint, text, jsonb, jsonb, text[], text[], text[], text[], jsonb, jsonb, jsonb, timestamptz);
