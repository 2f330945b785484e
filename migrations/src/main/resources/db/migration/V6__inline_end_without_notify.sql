-- An inline MCP call's child run ends in the process that waits for it: the NOTIFY flows_runs
-- that confirm_and_succeed (V4) sent for it woke only other processes' run watchers, and each
-- delivery cost every listening backend a transaction of its own (about one extra transaction
-- per durable f.mcp call). Same function without it; watchers elsewhere see such a run end at
-- their fallback poll.
CREATE OR REPLACE FUNCTION flows.confirm_and_succeed(
    p_run_id text, p_step_id text, p_attempt integer, p_lease_id text, p_surface text,
    p_confirm_output jsonb, p_step_output jsonb, p_succeeded_status text,
    p_confirmed jsonb, p_completed jsonb, p_run_completed jsonb)
  RETURNS TABLE (outcome text, run_status text)
  LANGUAGE plpgsql AS $$
DECLARE
  v_now      timestamptz := clock_timestamp();
  v_run      flows.runs%ROWTYPE;
  v_step     flows.steps%ROWTYPE;
  v_election flows.effect_elections%ROWTYPE;
  v_effects  jsonb;
BEGIN
  SELECT * INTO v_run FROM flows.runs WHERE run_id = p_run_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'run_not_found'::text, NULL::text;
    RETURN;
  END IF;
  IF v_run.status IN ('succeeded', 'failed', 'canceled') THEN
    RETURN QUERY SELECT 'run_terminal'::text, CAST(v_run.status AS text);
    RETURN;
  END IF;
  SELECT * INTO v_step FROM flows.steps
   WHERE run_id = p_run_id AND step_id = p_step_id FOR NO KEY UPDATE;
  IF NOT FOUND OR v_step.status <> 'running' OR v_step.attempts <> p_attempt
     OR v_step.lease_id IS DISTINCT FROM p_lease_id OR NOT (v_step.lease_deadline > v_now) THEN
    RETURN QUERY SELECT 'lease_conflict'::text, CAST(v_run.status AS text);
    RETURN;
  END IF;
  SELECT * INTO v_election FROM flows.effect_elections
   WHERE run_id = p_run_id AND step_id = p_step_id AND surface_path = p_surface
     FOR NO KEY UPDATE;
  IF NOT FOUND OR v_election.attempt <> p_attempt THEN
    RETURN QUERY SELECT 'effect_not_recorded'::text, CAST(v_run.status AS text);
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM flows.effect_elections
              WHERE run_id = p_run_id AND step_id = p_step_id AND attempt = p_attempt
                AND surface_path <> p_surface AND NOT confirmed) THEN
    RETURN QUERY SELECT 'effect_unconfirmed'::text, CAST(v_run.status AS text);
    RETURN;
  END IF;
  IF NOT v_election.confirmed THEN
    UPDATE flows.effect_elections
       SET confirmed = true, output = p_confirm_output, confirmed_at = v_now
     WHERE run_id = p_run_id AND step_id = p_step_id AND surface_path = p_surface;
    INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
    VALUES (v_now, p_run_id, 'effect.confirmed', p_step_id, p_attempt, p_confirmed);
  END IF;
  UPDATE flows.steps
     SET status = CAST(p_succeeded_status AS flows.step_status),
         last_reason = 'success',
         output = p_step_output,
         lease_id = NULL, lease_deadline = NULL, lease_ms = NULL, worker_id = NULL,
         updated_at = v_now
   WHERE run_id = p_run_id AND step_id = p_step_id AND status = 'running'
     AND attempts = p_attempt AND lease_id = p_lease_id AND lease_deadline > v_now;
  SELECT coalesce(jsonb_agg(jsonb_build_object('surfacePath', surface_path,
                                               'idempotencyKey', idempotency_key)
                            ORDER BY surface_path), '[]'::jsonb)
    INTO v_effects
    FROM flows.effect_elections
   WHERE run_id = p_run_id AND step_id = p_step_id AND attempt = p_attempt AND confirmed;
  INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
  VALUES (v_now, p_run_id, 'step.completed', p_step_id, p_attempt,
          p_completed || jsonb_build_object('effects', v_effects));
  UPDATE flows.steps w
     SET status = 'ready', not_before = v_now, updated_at = v_now
   WHERE w.run_id = p_run_id AND w.status = 'waiting'
     AND NOT EXISTS (SELECT 1 FROM flows.steps d
                      WHERE d.run_id = w.run_id AND d.step_id = ANY(w.depends_on)
                        AND d.status <> 'succeeded');
  IF FOUND THEN
    PERFORM pg_notify('flows_work', p_run_id);
    RETURN QUERY SELECT 'ok'::text, CAST(v_run.status AS text);
    RETURN;
  END IF;
  IF v_run.status = 'running'
     AND NOT EXISTS (SELECT 1 FROM flows.steps WHERE run_id = p_run_id AND status <> 'succeeded')
  THEN
    UPDATE flows.runs
       SET status = 'succeeded', completed_at = v_now, completion_reason = 'success'
     WHERE run_id = p_run_id AND status = 'running';
    INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
    VALUES (v_now, p_run_id, 'run.completed', NULL, NULL, p_run_completed);
    -- No NOTIFY: the one waiting for this run is the body that made the call, in the process that
    -- runs this statement (the journal wakes it in-process). A NOTIFY here cost a transaction per
    -- call in every listening backend (Postgres reads its notification queue in one).
    RETURN QUERY SELECT 'ok'::text, 'succeeded'::text;
    RETURN;
  END IF;
  RETURN QUERY SELECT 'ok'::text, CAST(v_run.status AS text);
END
$$;
