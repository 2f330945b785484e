-- Counts lease renewals, outside the flows schema: a renewal is an update of a running step that
-- moves its lease deadline later under the same attempt and lease id. Each row names the worker
-- holding the lease and the transaction that renewed it, so renewal writes per worker are the
-- distinct transactions. Observes only: the trigger never refuses or changes anything.
CREATE SCHEMA probe;
CREATE TABLE probe.renewals (
  worker_id text NOT NULL,
  xid       bigint NOT NULL,
  at        timestamptz NOT NULL
);
CREATE FUNCTION probe.log_renewal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO probe.renewals VALUES (NEW.worker_id, txid_current(), clock_timestamp());
  RETURN NEW;
END
$$;
CREATE TRIGGER probe_renewals
  AFTER UPDATE ON flows.steps
  FOR EACH ROW
  WHEN (OLD.status = 'running' AND NEW.status = 'running' AND OLD.attempts = NEW.attempts
        AND OLD.lease_id = NEW.lease_id AND NEW.lease_deadline > OLD.lease_deadline)
  EXECUTE FUNCTION probe.log_renewal();
