-- A flow body that waits long on a child run gives its attempt back (StepOutcome.Suspended)
-- instead of holding a lease, a thread and its memory for the whole wait: its step goes from
-- running back to ready with last_reason 'suspended' and a recheck time, and is made claimable at
-- once when the awaited child leaves 'running' (its body is then replayed from the journal).

ALTER TYPE flows.completion_reason ADD VALUE 'suspended';

INSERT INTO flows.step_transitions (name, from_status, to_status) VALUES
  ('SUSPENDED', 'running', 'ready');

-- Attempts that ended suspended: they do not count against max_iterations.
ALTER TABLE flows.steps ADD COLUMN suspensions integer NOT NULL DEFAULT 0;
ALTER TABLE flows.steps ADD CONSTRAINT steps_suspensions_within_attempts
  CHECK (suspensions >= 0 AND suspensions <= attempts);

-- Set (under the child's row lock) by a parent attempt that suspends on this run. A completion of
-- the child either committed first, and the suspending transaction sees it and readies the parent
-- itself, or comes after and finds the parent's suspended step through the trigger below.
-- Runs nobody suspended on never fire it: the trigger's WHEN is false for them.
ALTER TABLE flows.runs ADD COLUMN wakes_parent boolean NOT NULL DEFAULT false;
ALTER TABLE flows.runs ADD CONSTRAINT runs_wakes_only_a_parent
  CHECK (NOT wakes_parent OR parent_run_id IS NOT NULL);

CREATE FUNCTION flows.wake_suspended_parent() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := clock_timestamp();
BEGIN
  UPDATE flows.steps
     SET not_before = v_now, updated_at = v_now
   WHERE run_id = NEW.parent_run_id
     AND status = 'ready'
     AND last_reason = 'suspended'
     AND not_before > v_now;
  IF FOUND THEN
    PERFORM pg_notify('flows_work', NEW.parent_run_id);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER runs_wake_suspended_parent
  AFTER UPDATE OF status ON flows.runs
  FOR EACH ROW
  WHEN (NEW.wakes_parent AND NEW.status <> 'running' AND NEW.status IS DISTINCT FROM OLD.status)
  EXECUTE FUNCTION flows.wake_suspended_parent();
