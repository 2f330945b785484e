-- Inline effects (Journal.startClaimed / Journal.confirmAndComplete): a durable f.mcp call made by
-- the body's own worker costs two transactions of one round trip each. Each function does, in one
-- statement, what the journal's multi-statement verbs do, writes the same rows and journal entries,
-- and is still checked by every trigger and CHECK of V1 (transitions, lease columns, append-only).
-- The caller (PostgresJournal) encodes the entries' payloads; the functions add only what depends
-- on the database clock. A refusal answers a code and writes nothing.

-- An instant as the journal's payloads spell it (ISO-8601, UTC, "Z"), parsed by java.time.Instant.
CREATE FUNCTION flows.iso_instant(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;

-- Admits a one-step run, opens attempt 1 leased to p_worker_id and elects it for p_surface.
-- outcome: 'claimed' (with the lease deadline), 'exists' (the run id or admission key already
-- admitted a run; existing_run_id names it), 'terminal' (the run id is tombstoned or ended under
-- another key).
CREATE FUNCTION flows.start_claimed(
    p_run_id text, p_name text, p_run_status text, p_parent_run_id text, p_admission_key text,
    p_spec jsonb, p_spec_hash text, p_created_by text,
    p_step_id text, p_kind text, p_route text, p_ready_status text, p_running_status text,
    p_max_iterations integer, p_step_spec jsonb,
    p_lease_id text, p_lease_ms bigint, p_worker_id text,
    p_surface text, p_key text,
    p_spawned jsonb, p_started jsonb, p_recorded jsonb)
  RETURNS TABLE (outcome text, existing_run_id text, lease_deadline timestamptz)
  LANGUAGE plpgsql AS $$
DECLARE
  v_now      timestamptz := clock_timestamp();
  v_deadline timestamptz := v_now + p_lease_ms * interval '1 millisecond';
  v_existing flows.runs%ROWTYPE;
BEGIN
  INSERT INTO flows.runs (run_id, name, status, parent_run_id, admission_key, spec, spec_hash,
                          created_by, created_at)
  VALUES (p_run_id, p_name, CAST(p_run_status AS flows.run_status), p_parent_run_id,
          p_admission_key, p_spec, p_spec_hash, p_created_by, v_now)
  ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    SELECT * INTO v_existing FROM flows.runs WHERE run_id = p_run_id;
    IF FOUND THEN
      IF v_existing.admission_key <> p_admission_key
         AND (v_existing.tombstone OR v_existing.status IN ('succeeded', 'failed', 'canceled')) THEN
        RETURN QUERY SELECT 'terminal'::text, v_existing.run_id, NULL::timestamptz;
        RETURN;
      END IF;
      RETURN QUERY SELECT 'exists'::text, v_existing.run_id, NULL::timestamptz;
      RETURN;
    END IF;
    SELECT * INTO v_existing FROM flows.runs WHERE admission_key = p_admission_key;
    RETURN QUERY SELECT 'exists'::text, coalesce(v_existing.run_id, p_run_id), NULL::timestamptz;
    RETURN;
  END IF;
  -- Created ready, then claimed: the same two transitions a startRun and a claim make.
  INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on, max_iterations,
                           spec, route, not_before, updated_at)
  VALUES (p_run_id, p_step_id, 0, CAST(p_kind AS flows.step_kind),
          CAST(p_ready_status AS flows.step_status), '{}', p_max_iterations, p_step_spec, p_route,
          v_now, v_now);
  UPDATE flows.steps
     SET status = CAST(p_running_status AS flows.step_status),
         attempts = 1,
         lease_id = p_lease_id,
         lease_deadline = v_deadline,
         lease_ms = p_lease_ms,
         worker_id = p_worker_id,
         updated_at = v_now
   WHERE run_id = p_run_id AND step_id = p_step_id;
  INSERT INTO flows.effect_elections (run_id, step_id, surface_path, attempt, idempotency_key,
                                      recorded_at)
  VALUES (p_run_id, p_step_id, p_surface, 1, p_key, v_now);
  INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
  VALUES (v_now, p_run_id, 'run.spawned', NULL, NULL, p_spawned),
         (v_now, p_run_id, 'step.attempt.started', p_step_id, 1,
          p_started || jsonb_build_object('leaseDeadline', flows.iso_instant(v_deadline))),
         (v_now, p_run_id, 'effect.recorded', p_step_id, 1, p_recorded);
  RETURN QUERY SELECT 'claimed'::text, p_run_id, v_deadline;
END
$$;

-- Confirms the attempt's election at p_surface and completes the attempt with success, then does
-- what a success does to the run (unblock waiting steps, or complete the run when every step
-- succeeded). Locks the run before the step, as every journal verb does. outcome: 'ok' (with the
-- run's status after), or the refusal: 'run_not_found', 'run_terminal', 'lease_conflict',
-- 'effect_not_recorded', 'effect_unconfirmed'.
CREATE FUNCTION flows.confirm_and_succeed(
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
    -- A run that ended leaves no work to claim: tell its watchers only (channel flows_runs), so
    -- claimers are not woken for nothing by every inline call.
    PERFORM pg_notify('flows_runs', p_run_id);
    RETURN QUERY SELECT 'ok'::text, 'succeeded'::text;
    RETURN;
  END IF;
  RETURN QUERY SELECT 'ok'::text, CAST(v_run.status AS text);
END
$$;
