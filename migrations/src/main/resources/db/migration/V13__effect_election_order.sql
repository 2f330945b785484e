-- A step's effects are listed in the order their elections were made (a flow body's memo
-- positions), not by surface path text, which sorts '/memo/10' before '/memo/2'. Adding the
-- identity column numbers the elections already stored in the order the table holds them.
ALTER TABLE flows.effect_elections ADD COLUMN elected_seq bigint GENERATED ALWAYS AS IDENTITY;

-- The one-trip functions take the journal's clock (p_now) and answer the statuses they wrote:
-- their new signatures are created by R__journal_functions.sql, which runs after this.
DROP FUNCTION IF EXISTS flows.start_claimed(text, text, text, text, text, jsonb, text, text, text,
                                            text, text, text, text, integer, jsonb, text, bigint,
                                            text, text, text, jsonb, jsonb, jsonb);
DROP FUNCTION IF EXISTS flows.confirm_and_succeed(text, text, integer, text, text, jsonb, jsonb,
                                                  text, jsonb, jsonb, jsonb);
DROP FUNCTION IF EXISTS flows.succeed_attempt(text, text, integer, text, jsonb, text, jsonb, jsonb,
                                              timestamptz, boolean);
