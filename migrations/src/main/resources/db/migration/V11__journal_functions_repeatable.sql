-- The journal's functions live in R__journal_functions.sql from here on, in their latest form.
-- flows.succeed_attempt takes the instant of its caller (so that flows.confirm_and_succeed, which
-- calls it, judges the lease at one instant) and whether the run's end is notified: its former
-- signature is dropped here, and the repeatable migration, which Flyway applies after every
-- versioned one, creates the new one.
DROP FUNCTION flows.succeed_attempt(text, text, integer, text, jsonb, text, jsonb, jsonb);
