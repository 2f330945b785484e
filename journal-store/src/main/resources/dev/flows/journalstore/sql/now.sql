-- The journal's clock: every deadline and not_before is judged against it. :now when a test clock
-- gives one, else the database's time. Set as flows.now for the rest of the transaction, for the
-- trigger that wakes a suspended parent (it cannot take a parameter); empty means the database's.
SELECT coalesce(CAST(:now AS timestamptz), clock_timestamp()) AS now,
       set_config('flows.now', coalesce(CAST(:now AS text), ''), true) AS setting
