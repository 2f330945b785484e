-- The check of every step UPDATE compared NEW.spec with OLD.spec: a jsonb comparison that
-- detoasts (decompresses) both copies of a spec of a few KiB on each lease renewal, claim and
-- completion, although no verb ever sets the spec. Same invariants, split by what can change them:
-- the identity check fires only for an UPDATE that names an identity column or the spec (one
-- that does not name them cannot change them); transitions and attempts are checked on every
-- UPDATE as before.
CREATE OR REPLACE FUNCTION flows.check_step_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status NOT IN ('waiting', 'ready') OR NEW.attempts <> 0 THEN
      RAISE EXCEPTION 'flows.steps: a step is created waiting or ready with no attempt, not % with %',
        NEW.status, NEW.attempts USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.attempts < OLD.attempts THEN
    RAISE EXCEPTION 'flows.steps: attempts of %/% cannot decrease (% -> %)',
      OLD.run_id, OLD.step_id, OLD.attempts, NEW.attempts USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status IS DISTINCT FROM OLD.status AND NOT EXISTS (
       SELECT 1 FROM flows.step_transitions t
        WHERE t.from_status = OLD.status AND t.to_status = NEW.status) THEN
    RAISE EXCEPTION 'flows.steps: undeclared step transition % -> % for %/%',
      OLD.status, NEW.status, OLD.run_id, OLD.step_id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE FUNCTION flows.check_step_identity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.run_id <> OLD.run_id OR NEW.step_id <> OLD.step_id OR NEW.kind <> OLD.kind
     OR NEW.spec <> OLD.spec OR NEW.position <> OLD.position THEN
    RAISE EXCEPTION 'flows.steps: identity and spec of %/% are immutable', OLD.run_id, OLD.step_id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER steps_identity_unchanged
  BEFORE UPDATE OF run_id, step_id, kind, spec, position ON flows.steps
  FOR EACH ROW EXECUTE FUNCTION flows.check_step_identity();
