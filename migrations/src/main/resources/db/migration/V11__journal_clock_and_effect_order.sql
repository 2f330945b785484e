-- Two rules the reference journal (InMemoryJournal) already follows:
--  * A step's effects are listed in the order their elections were made (a flow body's memo
--    positions), not by surface path text, which sorts '/memo/10' before '/memo/2'.
--  * Every function that reads the clock takes an optional "now" (p_now; NULL = the database
--    clock, the production case), so a test clock can drive leases and backoff. The trigger that
--    wakes a suspended parent cannot take a parameter: it reads the transaction-local setting
--    flows.now, which a transaction judged by a test clock sets (unset or empty = the database
--    clock).
-- The functions also answer the statuses they wrote, so the caller records the transitions the
-- database made from what it made.

ALTER TABLE flows.effect_elections ADD COLUMN elected_seq bigint GENERATED ALWAYS AS IDENTITY;

CREATE OR REPLACE FUNCTION flows.wake_suspended_parent() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz :=
    coalesce(CAST(nullif(current_setting('flows.now', true), '') AS timestamptz),
             clock_timestamp());
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

DROP FUNCTION flows.start_claimed(text, text, text, text, text, jsonb, text, text, text, text,
                                  text, text, text, integer, jsonb, text, bigint, text, text,
                                  text, jsonb, jsonb, jsonb);
DROP FUNCTION flows.confirm_and_succeed(text, text, integer, text, text, jsonb, jsonb, text,
                                        jsonb, jsonb, jsonb);
DROP FUNCTION flows.succeed_attempt(text, text, integer, text, jsonb, text, jsonb, jsonb);

-- Admits a one-step run, opens its attempt 1 leased to the caller and elects it, in one statement.
CREATE FUNCTION flows.start_claimed(
    p_run_id text, p_name text, p_run_status text, p_parent_run_id text, p_admission_key text,
    p_spec jsonb, p_spec_hash text, p_created_by text,
    p_step_id text, p_kind text, p_route text, p_running_status text,
    p_max_iterations integer, p_step_spec jsonb,
    p_lease_id text, p_lease_ms bigint, p_worker_id text,
    p_surface text, p_key text,
    p_spawned jsonb, p_started jsonb, p_recorded jsonb, p_now timestamptz)
  RETURNS TABLE (outcome text, existing_run_id text, lease_deadline timestamptz,
                 run_status text, step_status text)
  LANGUAGE plpgsql AS $$
DECLARE
  v_now         timestamptz := coalesce(p_now, clock_timestamp());
  v_deadline    timestamptz := v_now + p_lease_ms * interval '1 millisecond';
  v_existing    flows.runs%ROWTYPE;
  v_run_status  text;
  v_step_status text;
BEGIN
  INSERT INTO flows.runs (run_id, name, status, parent_run_id, admission_key, spec, spec_hash,
                          created_by, created_at)
  VALUES (p_run_id, p_name, CAST(p_run_status AS flows.run_status), p_parent_run_id,
          p_admission_key, p_spec, p_spec_hash, p_created_by, v_now)
  ON CONFLICT DO NOTHING
  RETURNING CAST(status AS text) INTO v_run_status;
  IF NOT FOUND THEN
    SELECT * INTO v_existing FROM flows.runs WHERE run_id = p_run_id;
    IF FOUND THEN
      IF v_existing.admission_key <> p_admission_key
         AND (v_existing.tombstone OR v_existing.status IN ('succeeded', 'failed', 'canceled')) THEN
        RETURN QUERY SELECT 'terminal'::text, v_existing.run_id, NULL::timestamptz, NULL::text,
                            NULL::text;
        RETURN;
      END IF;
      RETURN QUERY SELECT 'exists'::text, v_existing.run_id, NULL::timestamptz, NULL::text,
                          NULL::text;
      RETURN;
    END IF;
    SELECT * INTO v_existing FROM flows.runs WHERE admission_key = p_admission_key;
    RETURN QUERY SELECT 'exists'::text, coalesce(v_existing.run_id, p_run_id), NULL::timestamptz,
                        NULL::text, NULL::text;
    RETURN;
  END IF;
  -- Created running with its first attempt: what a startRun and a claim would leave, in one row
  -- version.
  INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on, max_iterations,
                           spec, route, not_before, updated_at, attempts, lease_id,
                           lease_deadline, lease_ms, worker_id)
  VALUES (p_run_id, p_step_id, 0, CAST(p_kind AS flows.step_kind),
          CAST(p_running_status AS flows.step_status), '{}', p_max_iterations, p_step_spec,
          p_route, v_now, v_now, 1, p_lease_id, v_deadline, p_lease_ms, p_worker_id)
  RETURNING CAST(status AS text) INTO v_step_status;
  INSERT INTO flows.effect_elections (run_id, step_id, surface_path, attempt, idempotency_key,
                                      recorded_at)
  VALUES (p_run_id, p_step_id, p_surface, 1, p_key, v_now);
  INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
  VALUES (v_now, p_run_id, 'run.spawned', NULL, NULL, p_spawned),
         (v_now, p_run_id, 'step.attempt.started', p_step_id, 1,
          p_started || jsonb_build_object('leaseDeadline', flows.iso_instant(v_deadline))),
         (v_now, p_run_id, 'effect.recorded', p_step_id, 1, p_recorded);
  RETURN QUERY SELECT 'claimed'::text, p_run_id, v_deadline, v_run_status, v_step_status;
END
$$;

-- Confirms the attempt's election and completes the attempt with success, in one statement.
CREATE FUNCTION flows.confirm_and_succeed(
    p_run_id text, p_step_id text, p_attempt integer, p_lease_id text, p_surface text,
    p_confirm_output jsonb, p_step_output jsonb, p_succeeded_status text,
    p_confirmed jsonb, p_completed jsonb, p_run_completed jsonb, p_now timestamptz)
  RETURNS TABLE (outcome text, run_status text, step_status text, unblocked integer)
  LANGUAGE plpgsql AS $$
DECLARE
  v_now         timestamptz := coalesce(p_now, clock_timestamp());
  v_run         flows.runs%ROWTYPE;
  v_step        flows.steps%ROWTYPE;
  v_election    flows.effect_elections%ROWTYPE;
  v_effects     jsonb;
  v_unblocked   integer;
  v_run_done    boolean := false;
  v_step_status text;
BEGIN
  IF p_now IS NOT NULL THEN
    -- The trigger that wakes a suspended parent judges by the same clock.
    PERFORM set_config('flows.now', CAST(p_now AS text), true);
  END IF;
  SELECT * INTO v_run FROM flows.runs WHERE run_id = p_run_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'run_not_found'::text, NULL::text, NULL::text, 0;
    RETURN;
  END IF;
  IF v_run.status IN ('succeeded', 'failed', 'canceled') THEN
    RETURN QUERY SELECT 'run_terminal'::text, CAST(v_run.status AS text), NULL::text, 0;
    RETURN;
  END IF;
  SELECT * INTO v_step FROM flows.steps
   WHERE run_id = p_run_id AND step_id = p_step_id FOR NO KEY UPDATE;
  IF NOT FOUND OR v_step.status <> 'running' OR v_step.attempts <> p_attempt
     OR v_step.lease_id IS DISTINCT FROM p_lease_id OR NOT (v_step.lease_deadline > v_now) THEN
    RETURN QUERY SELECT 'lease_conflict'::text, CAST(v_run.status AS text), NULL::text, 0;
    RETURN;
  END IF;
  SELECT * INTO v_election FROM flows.effect_elections
   WHERE run_id = p_run_id AND step_id = p_step_id AND surface_path = p_surface
     FOR NO KEY UPDATE;
  IF NOT FOUND OR v_election.attempt <> p_attempt THEN
    RETURN QUERY SELECT 'effect_not_recorded'::text, CAST(v_run.status AS text), NULL::text, 0;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM flows.effect_elections
              WHERE run_id = p_run_id AND step_id = p_step_id AND attempt = p_attempt
                AND surface_path <> p_surface AND NOT confirmed) THEN
    RETURN QUERY SELECT 'effect_unconfirmed'::text, CAST(v_run.status AS text), NULL::text, 0;
    RETURN;
  END IF;
  IF NOT v_election.confirmed THEN
    UPDATE flows.effect_elections
       SET confirmed = true, output = p_confirm_output, confirmed_at = v_now
     WHERE run_id = p_run_id AND step_id = p_step_id AND surface_path = p_surface;
  END IF;
  UPDATE flows.steps
     SET status = CAST(p_succeeded_status AS flows.step_status),
         last_reason = 'success',
         output = p_step_output,
         lease_id = NULL, lease_deadline = NULL, lease_ms = NULL, worker_id = NULL,
         updated_at = v_now
   WHERE run_id = p_run_id AND step_id = p_step_id AND status = 'running'
     AND attempts = p_attempt AND lease_id = p_lease_id AND lease_deadline > v_now
  RETURNING CAST(status AS text) INTO v_step_status;
  SELECT coalesce(jsonb_agg(jsonb_build_object('surfacePath', surface_path,
                                               'idempotencyKey', idempotency_key)
                            ORDER BY elected_seq), '[]'::jsonb)
    INTO v_effects
    FROM flows.effect_elections
   WHERE run_id = p_run_id AND step_id = p_step_id AND attempt = p_attempt AND confirmed;
  UPDATE flows.steps w
     SET status = 'ready', not_before = v_now, updated_at = v_now
   WHERE w.run_id = p_run_id AND w.status = 'waiting'
     AND NOT EXISTS (SELECT 1 FROM flows.steps d
                      WHERE d.run_id = w.run_id AND d.step_id = ANY(w.depends_on)
                        AND d.status <> 'succeeded');
  GET DIAGNOSTICS v_unblocked = ROW_COUNT;
  IF v_unblocked = 0 AND v_run.status = 'running'
     AND NOT EXISTS (SELECT 1 FROM flows.steps WHERE run_id = p_run_id AND status <> 'succeeded')
  THEN
    UPDATE flows.runs
       SET status = 'succeeded', completed_at = v_now, completion_reason = 'success'
     WHERE run_id = p_run_id AND status = 'running';
    v_run_done := true;
  END IF;
  -- One statement for every entry of this end, in order (a VALUES list is read in order, so seq
  -- follows it).
  INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
  SELECT v_now, p_run_id, e.entry_type, e.step_id, e.attempt, e.payload
    FROM (VALUES ('effect.confirmed'::flows.entry_type, p_step_id, p_attempt, p_confirmed,
                  NOT v_election.confirmed),
                 ('step.completed'::flows.entry_type, p_step_id, p_attempt,
                  p_completed || jsonb_build_object('effects', v_effects), true),
                 ('run.completed'::flows.entry_type, NULL, NULL, p_run_completed, v_run_done))
           AS e (entry_type, step_id, attempt, payload, journaled)
   WHERE e.journaled;
  IF v_unblocked > 0 THEN
    PERFORM pg_notify('flows_work', p_run_id);
  END IF;
  -- A run this ends sends no NOTIFY: the one waiting for it is the body that made the call, in the
  -- process that runs this statement.
  RETURN QUERY SELECT 'ok'::text,
                      CASE WHEN v_run_done THEN 'succeeded' ELSE CAST(v_run.status AS text) END,
                      v_step_status, v_unblocked;
END
$$;

-- Completes an attempt with success, and its run when it was the last step, in one statement.
CREATE FUNCTION flows.succeed_attempt(
    p_run_id text, p_step_id text, p_attempt integer, p_lease_id text, p_step_output jsonb,
    p_succeeded_status text, p_completed jsonb, p_run_completed jsonb, p_now timestamptz)
  RETURNS TABLE (outcome text, run_status text, unconfirmed text, unblocked integer,
                 step_status text)
  LANGUAGE plpgsql AS $$
DECLARE
  v_now         timestamptz := coalesce(p_now, clock_timestamp());
  v_run         flows.runs%ROWTYPE;
  v_step        flows.steps%ROWTYPE;
  v_effects     jsonb;
  v_unblocked   integer;
  v_run_done    boolean := false;
  v_open        text;
  v_step_status text;
BEGIN
  IF p_now IS NOT NULL THEN
    -- The trigger that wakes a suspended parent judges by the same clock.
    PERFORM set_config('flows.now', CAST(p_now AS text), true);
  END IF;
  SELECT * INTO v_run FROM flows.runs WHERE run_id = p_run_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'run_not_found'::text, NULL::text, NULL::text, 0, NULL::text;
    RETURN;
  END IF;
  IF v_run.status IN ('succeeded', 'failed', 'canceled') THEN
    RETURN QUERY SELECT 'run_terminal'::text, CAST(v_run.status AS text), NULL::text, 0,
                        NULL::text;
    RETURN;
  END IF;
  SELECT * INTO v_step FROM flows.steps
   WHERE run_id = p_run_id AND step_id = p_step_id FOR NO KEY UPDATE;
  IF NOT FOUND OR v_step.status <> 'running' OR v_step.attempts <> p_attempt
     OR v_step.lease_id IS DISTINCT FROM p_lease_id OR NOT (v_step.lease_deadline > v_now) THEN
    RETURN QUERY SELECT 'lease_conflict'::text, CAST(v_run.status AS text), NULL::text, 0,
                        NULL::text;
    RETURN;
  END IF;
  -- The first open election, in the order they were made.
  SELECT surface_path INTO v_open FROM flows.effect_elections
   WHERE run_id = p_run_id AND step_id = p_step_id AND attempt = p_attempt AND NOT confirmed
   ORDER BY elected_seq
   LIMIT 1;
  IF FOUND THEN
    RETURN QUERY SELECT 'effect_unconfirmed'::text, CAST(v_run.status AS text), v_open, 0,
                        NULL::text;
    RETURN;
  END IF;
  UPDATE flows.steps
     SET status = CAST(p_succeeded_status AS flows.step_status),
         last_reason = 'success',
         output = p_step_output,
         lease_id = NULL, lease_deadline = NULL, lease_ms = NULL, worker_id = NULL,
         updated_at = v_now
   WHERE run_id = p_run_id AND step_id = p_step_id AND status = 'running'
     AND attempts = p_attempt AND lease_id = p_lease_id AND lease_deadline > v_now
  RETURNING CAST(status AS text) INTO v_step_status;
  SELECT coalesce(jsonb_agg(jsonb_build_object('surfacePath', surface_path,
                                               'idempotencyKey', idempotency_key)
                            ORDER BY elected_seq), '[]'::jsonb)
    INTO v_effects
    FROM flows.effect_elections
   WHERE run_id = p_run_id AND step_id = p_step_id AND attempt = p_attempt AND confirmed;
  UPDATE flows.steps w
     SET status = 'ready', not_before = v_now, updated_at = v_now
   WHERE w.run_id = p_run_id AND w.status = 'waiting'
     AND NOT EXISTS (SELECT 1 FROM flows.steps d
                      WHERE d.run_id = w.run_id AND d.step_id = ANY(w.depends_on)
                        AND d.status <> 'succeeded');
  GET DIAGNOSTICS v_unblocked = ROW_COUNT;
  IF v_unblocked = 0 AND v_run.status = 'running'
     AND NOT EXISTS (SELECT 1 FROM flows.steps WHERE run_id = p_run_id AND status <> 'succeeded')
  THEN
    UPDATE flows.runs
       SET status = 'succeeded', completed_at = v_now, completion_reason = 'success'
     WHERE run_id = p_run_id AND status = 'running';
    v_run_done := true;
  END IF;
  -- Both entries in one statement, step.completed first (a VALUES list is read in order, so seq
  -- follows it).
  INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
  SELECT v_now, p_run_id, e.entry_type, e.step_id, e.attempt, e.payload
    FROM (VALUES ('step.completed'::flows.entry_type, p_step_id, p_attempt,
                  p_completed || jsonb_build_object('effects', v_effects), true),
                 ('run.completed'::flows.entry_type, NULL, NULL, p_run_completed, v_run_done))
           AS e (entry_type, step_id, attempt, payload, journaled)
   WHERE e.journaled;
  IF v_unblocked > 0 OR v_run_done THEN
    -- Work became ready, or the run ended: claimers and the run's watchers in other processes.
    PERFORM pg_notify('flows_work', p_run_id);
  END IF;
  RETURN QUERY SELECT 'ok'::text,
                      CASE WHEN v_run_done THEN 'succeeded' ELSE CAST(v_run.status AS text) END,
                      NULL::text, v_unblocked, v_step_status;
END
$$;
