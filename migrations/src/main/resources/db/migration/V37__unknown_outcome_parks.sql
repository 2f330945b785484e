-- A step whose last attempt's lease ran out while an effect it recorded was never confirmed parks
-- (effect_outcome_unknown) instead of failing: the effect may have happened.
INSERT INTO flows.step_transitions (name, from_status, to_status) VALUES
  ('LEASE_EXPIRED_PARKED', 'running', 'parked');
