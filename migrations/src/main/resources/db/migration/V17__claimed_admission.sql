-- flows.start_claimed also admits a root run already claimed by the starting process's worker: it
-- takes the run's queue and rerun_of, and elects an effect only when given a surface. Its new
-- signature is created by R__journal_functions.sql, which runs after this.
DROP FUNCTION IF EXISTS flows.start_claimed(text, text, text, text, text, jsonb, text, text, text,
                                            text, text, text, integer, jsonb, text, bigint, text,
                                            text, text, jsonb, jsonb, jsonb, timestamptz);
