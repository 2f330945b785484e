-- flows.start_succeeded takes each run's journal entries as the caller encoded them (one array
-- element per entry, its run's k beside it) instead of building them from per-run payloads: its
-- journal INSERT reads one array, in order, with no union, join or sort to set up per call.
-- R__journal_functions.sql defines it in its new form.
DROP FUNCTION IF EXISTS flows.start_succeeded(
  text[], text[], text[], text[], text[], text[], text[], text[], text[], text[], text[], text[],
  integer[], text[], bigint[], text[], text[], text[], text[], text[], text[], integer[], text[],
  text[], text[], text[], timestamptz);
