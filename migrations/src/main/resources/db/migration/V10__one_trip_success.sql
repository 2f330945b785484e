-- An attempt that ends with success in one round trip. Journal.complete made a dozen statements
-- in one transaction for it (the clock, run lock, fenced step lock, the attempt's elections, the
-- step's end, its entry, the unblocked steps, whether any step is left, the run's end and its
-- entry, the NOTIFY, the commit): on loopback each is a round trip of ~0.1 ms, 1.4 ms in all, more
-- than claim and complete of a one-step run cost the server together. Same checks in the same
-- order, same rows, same entries in the same order, same NOTIFY, same refusals (answered as an
-- outcome the caller turns into its exception, as confirm_and_succeed does).
CREATE FUNCTION flows.succeed_attempt(
    p_run_id text, p_step_id text, p_attempt integer, p_lease_id text, p_step_output jsonb,
    p_succeeded_status text, p_completed jsonb, p_run_completed jsonb)
  RETURNS TABLE (outcome text, run_status text, unconfirmed text, unblocked integer)
  LANGUAGE plpgsql AS $$
DECLARE
  v_now       timestamptz := clock_timestamp();
  v_run       flows.runs%ROWTYPE;
  v_step      flows.steps%ROWTYPE;
  v_effects   jsonb;
  v_unblocked integer;
  v_run_done  boolean := false;
  v_open      text;
BEGIN
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
  -- The first open election by surface path, as the Java path names it in its refusal.
  SELECT surface_path INTO v_open FROM flows.effect_elections
   WHERE run_id = p_run_id AND step_id = p_step_id AND attempt = p_attempt AND NOT confirmed
   ORDER BY surface_path
   LIMIT 1;
  IF FOUND THEN
    RETURN QUERY SELECT 'effect_unconfirmed'::text, CAST(v_run.status AS text), v_open, 0;
    RETURN;
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
                      NULL::text, v_unblocked;
END
$$;
