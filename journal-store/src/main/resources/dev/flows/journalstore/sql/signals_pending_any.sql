-- Whether a signal with one of these names waits for the run: a suspending attempt that waits for
-- it is ready at once.
SELECT EXISTS (SELECT 1 FROM flows.signal_mailbox
                WHERE run_id = :runId AND name = ANY(:names) AND delivered_at IS NULL) AS pending
