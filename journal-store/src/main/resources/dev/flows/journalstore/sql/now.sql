-- The journal's clock: every deadline and not_before is judged against the database's time.
SELECT clock_timestamp()
