-- Chaos instrumentation, outside the flows schema: lease renewals are not journaled, so the
-- deadline a completion was judged against is captured here, from the step row itself, at the
-- moment the attempt ends. Observes only: the trigger never refuses or changes anything.
CREATE SCHEMA chaos;
CREATE TABLE chaos.attempt_ends (
  run_id         text NOT NULL,
  step_id        text NOT NULL,
  attempt        integer NOT NULL,
  lease_deadline timestamptz NOT NULL,
  decided_at     timestamptz NOT NULL,
  written_at     timestamptz NOT NULL,
  new_status     flows.step_status NOT NULL,
  reason         flows.completion_reason
);
-- No key: the trigger must never be the reason an engine transaction fails.
CREATE INDEX attempt_ends_by_attempt ON chaos.attempt_ends (run_id, step_id, attempt);
CREATE FUNCTION chaos.log_attempt_end() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'running' AND NEW.status <> 'running' THEN
    INSERT INTO chaos.attempt_ends
      VALUES (OLD.run_id, OLD.step_id, OLD.attempts, OLD.lease_deadline, NEW.updated_at,
              clock_timestamp(), NEW.status, NEW.last_reason);
  END IF;
  RETURN NEW;
END
$$;
-- AFTER: sees the row exactly as the engine's own checks let it through.
CREATE TRIGGER chaos_attempt_ends
  AFTER UPDATE ON flows.steps
  FOR EACH ROW EXECUTE FUNCTION chaos.log_attempt_end();
