-- Every function of schema flows, in its one current form. Flyway applies this file after all
-- versioned migrations, and again whenever it changes; versioned migrations hold the schema only
-- (tables, types, triggers, transition rows) and drop a function whose signature changes. A
-- trigger whose function is first defined here (runs_inherit_queue) is created here too, after it.
--
-- The rules written here are the Postgres side of rules the kernel states in Java for the
-- in-memory journal (dev.flows.kernel.journal):
--   flows.lock_live_attempt  <-> MemoryState.live: the fence of a worker's verb
--   flows.after_success      <-> AfterSuccess.of: what a success readies, whether the run ends
--   flows.succeed_attempt    <-> AttemptEnd.reported for StepOutcome.Succeeded, then after_success
--                                (flows.succeed_fenced: what follows the fence)
--   flows.succeed_after_memos <-> InMemoryJournal.complete: a success's memos, then its end
--   flows.start_succeeded    <-> Journal.startRunSucceeded: startRunClaimed, then complete,
--                                as the rows and entries they leave
-- The transitions they take are the kernel's tables (flows.step_transitions, run_transitions),
-- enforced by the triggers below; the Java caller checks each one against Lifecycle.

-- Refuses any change to a table that is append-only (journal entries, transition tables).
CREATE OR REPLACE FUNCTION flows.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'flows.%: % refused, the table is append-only', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'restrict_violation';
END
$$;

-- A step is created waiting or ready with no attempt, or running with its first attempt open by
-- the transaction that inserted its run (the inline admission of start_claimed: exactly the
-- ready -> running claim, with nothing in between that another transaction could see; xmin names
-- the inserting top-level transaction, and start_claimed runs no subtransaction), or succeeded at
-- its first attempt by that transaction (start_succeeded: the claim, then the success). Attempts
-- never decrease, and every status change is a declared transition.
CREATE OR REPLACE FUNCTION flows.check_step_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status IN ('waiting', 'ready') AND NEW.attempts = 0 THEN
      RETURN NEW;
    END IF;
    IF NEW.status IN ('running', 'succeeded') AND NEW.attempts = 1 AND EXISTS (
         SELECT 1 FROM flows.runs r
          WHERE r.run_id = NEW.run_id AND r.xmin = pg_current_xact_id()::xid) THEN
      RETURN NEW;
    END IF;
    RAISE EXCEPTION 'flows.steps: a step is created waiting or ready with no attempt, not % with %',
      NEW.status, NEW.attempts USING ERRCODE = 'check_violation';
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

-- A step's identity and spec never change, but for one move: a flow body's instruction may name
-- another version of the same flow (Journal.upgradeRun, journaled run.upgraded). Its trigger fires
-- only for an UPDATE that names one of those columns, so the spec (a few KiB of jsonb) is not
-- compared on every lease renewal.
CREATE OR REPLACE FUNCTION flows.check_step_identity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.run_id <> OLD.run_id OR NEW.step_id <> OLD.step_id OR NEW.kind <> OLD.kind
     OR NEW.position <> OLD.position
     OR (NEW.spec <> OLD.spec AND NOT (
           coalesce(OLD.spec #>> '{agent,instruction,type}' = 'flow', false)
           AND coalesce(NEW.spec #>> '{agent,instruction,type}' = 'flow', false)
           AND coalesce(NEW.spec #>> '{agent,instruction,flow}'
                        = OLD.spec #>> '{agent,instruction,flow}', false)
           AND NEW.spec #- '{agent,instruction}' = OLD.spec #- '{agent,instruction}')) THEN
    RAISE EXCEPTION 'flows.steps: identity and spec of %/% are immutable', OLD.run_id, OLD.step_id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

-- A run is created as a declared creation (spawned or tombstoned), or succeeded: spawned, then
-- ended by all its steps succeeding, both declared, in the transaction that inserts it
-- (start_succeeded); its identity, admission and spec never change; every status change is a
-- declared transition.
CREATE OR REPLACE FUNCTION flows.check_run_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT 1 FROM flows.run_transitions t
                    WHERE t.from_status IS NULL AND t.to_status = NEW.status)
       AND NOT (NEW.status = 'succeeded' AND EXISTS (
                  SELECT 1 FROM flows.run_transitions spawned
                    JOIN flows.run_transitions ended ON ended.from_status = spawned.to_status
                   WHERE spawned.name = 'SPAWNED' AND ended.name = 'ALL_STEPS_SUCCEEDED'
                     AND ended.to_status = NEW.status)) THEN
      RAISE EXCEPTION 'flows.runs: a run cannot be created %', NEW.status
        USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.run_id <> OLD.run_id OR NEW.admission_key <> OLD.admission_key
     OR NEW.spec_hash <> OLD.spec_hash OR NEW.tombstone <> OLD.tombstone
     OR NEW.parent_run_id IS DISTINCT FROM OLD.parent_run_id
     OR NEW.rerun_of IS DISTINCT FROM OLD.rerun_of THEN
    RAISE EXCEPTION 'flows.runs: identity, admission and spec of % are immutable', OLD.run_id
      USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status IS DISTINCT FROM OLD.status AND NOT EXISTS (
       SELECT 1 FROM flows.run_transitions t
        WHERE t.from_status = OLD.status AND t.to_status = NEW.status) THEN
    RAISE EXCEPTION 'flows.runs: undeclared run transition % -> % for %',
      OLD.status, NEW.status, OLD.run_id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

-- A confirmed election is final; an open one may only pass to a later attempt.
CREATE OR REPLACE FUNCTION flows.check_effect_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.confirmed AND (NEW.confirmed IS DISTINCT FROM OLD.confirmed
                        OR NEW.attempt <> OLD.attempt
                        OR NEW.output IS DISTINCT FROM OLD.output) THEN
    RAISE EXCEPTION 'flows.effect_elections: %/% % is confirmed and final',
      OLD.run_id, OLD.step_id, OLD.surface_path USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.attempt < OLD.attempt OR NEW.idempotency_key <> OLD.idempotency_key THEN
    RAISE EXCEPTION 'flows.effect_elections: %/% % may only pass to a later attempt',
      OLD.run_id, OLD.step_id, OLD.surface_path USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;

-- A confirmed election is the record that an effect happened and is never dropped (resolving a
-- parked step as "not performed" drops only the unconfirmed ones).
-- A statement trigger (effects_keep_confirmed, below): a confirmed election goes only with its run,
-- in a prune (flows.prune_runs).
CREATE OR REPLACE FUNCTION flows.refuse_confirmed_effect_delete() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  v_gone record;
BEGIN
  SELECT o.run_id, o.step_id, o.surface_path INTO v_gone
    FROM old_rows o
   WHERE o.confirmed
     AND NOT EXISTS (SELECT 1 FROM flows.prunes p JOIN flows.pruned_runs pr USING (prune_id)
                      WHERE p.tx = pg_current_xact_id() AND pr.run_id = o.run_id)
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'flows.effect_elections: %/% % is confirmed and cannot be deleted',
      v_gone.run_id, v_gone.step_id, v_gone.surface_path USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NULL;
END
$$;

-- A child run that a suspended parent attempt awaits has left 'running': the parent's suspended
-- steps are claimable now. A trigger takes no parameter: it reads the journal's clock from the
-- transaction-local setting flows.now, which a transaction judged by a test clock sets (unset or
-- empty: the database clock).
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

-- An instant as the journal's payloads spell it (ISO-8601, UTC, "Z"), parsed by
-- java.time.Instant. STABLE like the to_char it wraps, so the planner inlines it into the caller.
CREATE OR REPLACE FUNCTION flows.iso_instant(t timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;

-- Why an admission's insert of run p_run_id under p_admission_key found a run already: 'terminal'
-- (the run id is tombstoned or ended under another key) or 'exists' (the run id or the key admitted
-- a run; existing_run_id names it).
CREATE OR REPLACE FUNCTION flows.admission_conflict(p_run_id text, p_admission_key text)
  RETURNS TABLE (outcome text, existing_run_id text)
  LANGUAGE plpgsql AS $$
DECLARE
  v_existing flows.runs%ROWTYPE;
BEGIN
  SELECT * INTO v_existing FROM flows.runs WHERE run_id = p_run_id;
  IF FOUND THEN
    IF v_existing.admission_key <> p_admission_key
       AND (v_existing.tombstone OR v_existing.status IN ('succeeded', 'failed', 'canceled')) THEN
      RETURN QUERY SELECT 'terminal'::text, v_existing.run_id;
      RETURN;
    END IF;
    RETURN QUERY SELECT 'exists'::text, v_existing.run_id;
    RETURN;
  END IF;
  SELECT * INTO v_existing FROM flows.runs WHERE admission_key = p_admission_key;
  RETURN QUERY SELECT 'exists'::text, coalesce(v_existing.run_id, p_run_id);
END
$$;

-- Admits a one-step run and opens attempt 1 leased to p_worker_id, in one round trip; with
-- p_surface (an inline f.mcp call) it also elects that attempt for the effect there, without (a
-- root run admitted already claimed by the starting process's worker) it elects nothing. The
-- caller encodes the entries' payloads; this adds only what depends on the journal's clock (p_now,
-- NULL: the database clock). No flows_work NOTIFY: the caller runs the attempt itself. outcome:
-- 'claimed' (with the lease deadline and the statuses it wrote, from which the caller records the
-- transitions), 'exists' (the run id or admission key already admitted a run; existing_run_id
-- names it), 'terminal' (the run id is tombstoned or ended under another key). The step is created
-- running, in one row version, as a startRun and a claim would leave it. Generic plans only, as
-- in confirm_and_succeed: the run trigger's check was otherwise planned afresh on every call.
CREATE OR REPLACE FUNCTION flows.start_claimed(
    p_run_id text, p_name text, p_run_status text, p_parent_run_id text, p_admission_key text,
    p_spec jsonb, p_spec_hash text, p_created_by text, p_rerun_of text, p_queue text,
    p_step_id text, p_kind text, p_route text, p_running_status text,
    p_max_iterations integer, p_step_spec jsonb,
    p_lease_id text, p_lease_ms bigint, p_worker_id text,
    p_surface text, p_key text,
    p_spawned jsonb, p_started jsonb, p_recorded jsonb, p_now timestamptz)
  RETURNS TABLE (outcome text, existing_run_id text, lease_deadline timestamptz,
                 run_status text, step_status text)
  LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_now         timestamptz := coalesce(p_now, clock_timestamp());
  v_deadline    timestamptz := v_now + p_lease_ms * interval '1 millisecond';
  v_run_status  text;
  v_step_status text;
BEGIN
  INSERT INTO flows.runs (run_id, name, status, parent_run_id, admission_key, spec, spec_hash,
                          created_by, rerun_of, queue, created_at)
  VALUES (p_run_id, p_name, CAST(p_run_status AS flows.run_status), p_parent_run_id,
          p_admission_key, p_spec, p_spec_hash, p_created_by, p_rerun_of, p_queue, v_now)
  ON CONFLICT DO NOTHING
  RETURNING CAST(status AS text) INTO v_run_status;
  IF NOT FOUND THEN
    RETURN QUERY SELECT c.outcome, c.existing_run_id, NULL::timestamptz, NULL::text, NULL::text
                   FROM flows.admission_conflict(p_run_id, p_admission_key) c;
    RETURN;
  END IF;
  INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on, max_iterations,
                           spec, route, not_before, updated_at, attempts, lease_id,
                           lease_deadline, lease_ms, worker_id)
  VALUES (p_run_id, p_step_id, 0, CAST(p_kind AS flows.step_kind),
          CAST(p_running_status AS flows.step_status), '{}', p_max_iterations, p_step_spec,
          p_route, v_now, v_now, 1, p_lease_id, v_deadline, p_lease_ms, p_worker_id)
  RETURNING CAST(status AS text) INTO v_step_status;
  IF p_surface IS NOT NULL THEN
    INSERT INTO flows.effect_elections (run_id, step_id, surface_path, attempt, idempotency_key,
                                        recorded_at)
    VALUES (p_run_id, p_step_id, p_surface, 1, p_key, v_now);
  END IF;
  -- One statement for the two or three entries, in journal order; effect.recorded only with an
  -- election.
  INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
  SELECT v_now, p_run_id, e.entry_type, e.step_id, e.attempt, e.payload
    FROM (VALUES (1, CAST('run.spawned' AS flows.entry_type), NULL::text, NULL::integer,
                  p_spawned),
                 (2, 'step.attempt.started', p_step_id, 1,
                  p_started || jsonb_build_object('leaseDeadline', flows.iso_instant(v_deadline))),
                 (3, 'effect.recorded', p_step_id, 1, p_recorded))
         AS e(ord, entry_type, step_id, attempt, payload)
   WHERE e.ord < 3 OR p_surface IS NOT NULL
   ORDER BY e.ord;
  RETURN QUERY SELECT 'claimed'::text, p_run_id, v_deadline, v_run_status, v_step_status;
END
$$;

-- Runs admitted already claimed and their attempt 1 ended in success with its memos, in one round
-- trip for a batch of them (concurrent starters' runs, written together): for each, the rows and
-- entries flows.start_claimed then flows.succeed_after_memos would leave, each row written once in
-- its final state (the run inserted succeeded, as spawned then ended with its one step; the step
-- succeeded at attempt 1, as claimed then completed), for a process that ran the body before
-- admitting its run and saw it end before anyone could know the run id. So nothing is notified: a
-- run nobody has seen has no watcher in another process, and readies nothing. Run k is element k
-- of each p_* array of runs; a memo names its run by that k (p_memo_runs), the memos of a run in
-- their order; so does a journal entry (p_entry_runs), the entries of every run in journal order,
-- run after run, their payloads encoded by the caller. This adds what depends on the journal's
-- clock (p_now, NULL: the database clock): the attempt's lease deadline. One row per run k:
-- outcome 'ok', or flows.admission_conflict's 'exists' / 'terminal' having written nothing for that
-- run. Each INSERT takes the whole batch, so what Postgres pays per statement (setting up the plan,
-- its checks and triggers) is paid once, and reads its rows from arrays in their order (no sort, no
-- union to set up on every call).
-- Generic plans only: the answer's query (with admission_conflict) was otherwise planned afresh on
-- every call, its custom plan always looking cheaper than the generic one, and planning it cost
-- more than running it; every statement here takes arrays of one shape whatever their contents.
CREATE OR REPLACE FUNCTION flows.start_succeeded(
    p_run_ids text[], p_names text[], p_parent_run_ids text[], p_admission_keys text[],
    p_specs text[], p_spec_hashes text[], p_created_by text[], p_rerun_of text[], p_queues text[],
    p_step_ids text[], p_kinds text[], p_routes text[], p_max_iterations integer[],
    p_step_specs text[], p_lease_ms bigint[], p_keys text[], p_step_outputs text[],
    p_memo_runs integer[], p_surfaces text[], p_outputs text[],
    p_entry_runs integer[], p_entry_types text[], p_payloads text[], p_now timestamptz)
  RETURNS TABLE (run integer, outcome text, existing_run_id text)
  LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_now      timestamptz := coalesce(p_now, clock_timestamp());
  v_admitted text[];
BEGIN
  WITH admitted AS (
    INSERT INTO flows.runs (run_id, name, status, parent_run_id, admission_key, spec, spec_hash,
                            created_by, rerun_of, queue, created_at, completed_at,
                            completion_reason)
    SELECT r.run_id, r.name, 'succeeded', r.parent_run_id, r.admission_key,
           CAST(r.spec AS jsonb), r.spec_hash, r.created_by, r.rerun_of, r.queue, v_now, v_now,
           'success'
      FROM unnest(p_run_ids, p_names, p_parent_run_ids, p_admission_keys, p_specs, p_spec_hashes,
                  p_created_by, p_rerun_of, p_queues)
        AS r(run_id, name, parent_run_id, admission_key, spec, spec_hash, created_by, rerun_of,
             queue)
    ON CONFLICT DO NOTHING
    RETURNING run_id)
  SELECT coalesce(array_agg(a.run_id), '{}') INTO v_admitted FROM admitted a;
  IF cardinality(v_admitted) > 0 THEN
    -- A large step output equal to one of its memos' is kept once, in that memo's election (as
    -- steps_output_once keeps it, which cannot here: the elections are written after the steps).
    INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on, max_iterations,
                             spec, route, not_before, updated_at, attempts, last_reason, output,
                             output_of)
    SELECT s.run_id, s.step_id, 0, CAST(s.kind AS flows.step_kind), 'succeeded', '{}',
           s.max_iterations, CAST(s.spec AS jsonb), s.route, v_now, v_now, 1, 'success',
           CASE WHEN o.surface IS NULL THEN CAST(s.output AS jsonb) END, o.surface
      FROM unnest(p_run_ids, p_step_ids, p_kinds, p_max_iterations, p_step_specs, p_routes,
                  p_step_outputs) WITH ORDINALITY
        AS s(run_id, step_id, kind, max_iterations, spec, route, output, k)
      LEFT JOIN LATERAL (
        SELECT m.surface
          FROM unnest(p_memo_runs, p_surfaces, p_outputs) WITH ORDINALITY
            AS m(k, surface, output, o)
         WHERE octet_length(s.output) > 2048 AND m.k = s.k
           AND CAST(m.output AS jsonb) = CAST(s.output AS jsonb)
         ORDER BY m.o
         LIMIT 1) o ON true
     WHERE s.run_id = ANY (v_admitted);
    INSERT INTO flows.effect_elections (run_id, step_id, surface_path, attempt, idempotency_key,
                                        confirmed, output, recorded_at, confirmed_at)
    SELECT p_run_ids[m.k], p_step_ids[m.k], m.surface, 1, p_keys[m.k], true,
           CAST(m.output AS jsonb), v_now, v_now
      FROM unnest(p_memo_runs, p_surfaces, p_outputs) AS m(k, surface, output)
     WHERE p_run_ids[m.k] = ANY (v_admitted);
    -- Every entry in one statement, in the arrays' order: each run's in journal order. A run's
    -- entries are the run's (no step) or its one step's attempt 1.
    INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
    SELECT v_now, p_run_ids[e.k], e.entry_type,
           CASE WHEN e.entry_type IN ('run.spawned', 'run.completed') THEN NULL
                ELSE p_step_ids[e.k] END,
           CASE WHEN e.entry_type IN ('run.spawned', 'run.completed') THEN NULL ELSE 1 END,
           CASE WHEN e.entry_type = 'step.attempt.started'
                THEN CAST(e.payload AS jsonb) || jsonb_build_object(
                       'leaseDeadline',
                       flows.iso_instant(v_now + p_lease_ms[e.k] * interval '1 millisecond'))
                ELSE CAST(e.payload AS jsonb) END
      FROM unnest(p_entry_runs, CAST(p_entry_types AS flows.entry_type[]), p_payloads)
        AS e(k, entry_type, payload)
     WHERE p_run_ids[e.k] = ANY (v_admitted);
  END IF;
  IF cardinality(v_admitted) = cardinality(p_run_ids) THEN
    RETURN QUERY SELECT CAST(r.k AS integer), 'ok'::text, r.run_id
                   FROM unnest(p_run_ids) WITH ORDINALITY AS r(run_id, k);
    RETURN;
  END IF;
  RETURN QUERY
    SELECT CAST(r.k AS integer), 'ok'::text, r.run_id
      FROM unnest(p_run_ids) WITH ORDINALITY AS r(run_id, k)
     WHERE r.run_id = ANY (v_admitted)
    UNION ALL
    SELECT CAST(r.k AS integer), c.outcome, c.existing_run_id
      FROM unnest(p_run_ids, p_admission_keys) WITH ORDINALITY AS r(run_id, admission_key, k)
     CROSS JOIN LATERAL flows.admission_conflict(r.run_id, r.admission_key) c
     WHERE NOT (r.run_id = ANY (v_admitted))
     ORDER BY 1;
END
$$;

-- The fence of a worker's verb: locks the run, then the step (the order every verb locks in), and
-- answers 'ok' with the run's status when the attempt named holds a live lease at p_now; else the
-- refusal: 'run_not_found', 'run_terminal' or 'lease_conflict'. The one definition of the fence
-- in Postgres: the verbs composed in Java take it too (step_lock_live.sql).
CREATE OR REPLACE FUNCTION flows.lock_live_attempt(
    p_run_id text, p_step_id text, p_attempt integer, p_lease_id text, p_now timestamptz)
  RETURNS TABLE (outcome text, run_status text)
  LANGUAGE plpgsql AS $$
DECLARE
  v_run  flows.runs%ROWTYPE;
  v_step flows.steps%ROWTYPE;
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
     OR v_step.lease_id IS DISTINCT FROM p_lease_id OR NOT (v_step.lease_deadline > p_now) THEN
    RETURN QUERY SELECT 'lease_conflict'::text, CAST(v_run.status AS text);
    RETURN;
  END IF;
  RETURN QUERY SELECT 'ok'::text, CAST(v_run.status AS text);
END
$$;

-- What a success readies (kernel: AfterSuccess.of), in the transaction that wrote it: the run's
-- waiting steps whose dependencies have all succeeded become ready, and when none did and every
-- step succeeded, a running run ends succeeded. Answers how many steps it readied and whether the
-- run ended; the caller journals and notifies.
CREATE OR REPLACE FUNCTION flows.after_success(
    p_run_id text, p_run_status text, p_now timestamptz)
  RETURNS TABLE (unblocked integer, run_done boolean)
  LANGUAGE plpgsql AS $$
DECLARE
  v_unblocked integer;
BEGIN
  UPDATE flows.steps w
     SET status = 'ready', not_before = p_now, updated_at = p_now
   WHERE w.run_id = p_run_id AND w.status = 'waiting'
     AND NOT EXISTS (SELECT 1 FROM flows.steps d
                      WHERE d.run_id = w.run_id AND d.step_id = ANY(w.depends_on)
                        AND d.status <> 'succeeded');
  GET DIAGNOSTICS v_unblocked = ROW_COUNT;
  IF v_unblocked = 0 AND p_run_status = 'running'
     AND NOT EXISTS (SELECT 1 FROM flows.steps WHERE run_id = p_run_id AND status <> 'succeeded')
  THEN
    UPDATE flows.runs
       SET status = 'succeeded', completed_at = p_now, completion_reason = 'success'
     WHERE run_id = p_run_id AND status = 'running';
    RETURN QUERY SELECT 0, true;
    RETURN;
  END IF;
  RETURN QUERY SELECT v_unblocked, false;
END
$$;

-- An attempt that ends with success, in one round trip: the fence, no open election of the
-- attempt, then flows.succeed_fenced. Payloads are encoded by the caller. p_now is the instant of a
-- caller that has made checks of its own (else the database clock); p_notify_run_end false leaves
-- a run's end unnotified, for a caller whose run is awaited only in its own process. A p_now given
-- is also the transaction's flows.now, the clock of the trigger that wakes a suspended parent. The
-- first open election is named in the order the elections were made. outcome: 'ok' (with the run's
-- status after, the count of readied steps and the step status written), or the refusal:
-- 'run_not_found', 'run_terminal', 'lease_conflict', 'effect_unconfirmed' (naming the first open
-- election).
CREATE OR REPLACE FUNCTION flows.succeed_attempt(
    p_run_id text, p_step_id text, p_attempt integer, p_lease_id text, p_step_output jsonb,
    p_succeeded_status text, p_completed jsonb, p_run_completed jsonb,
    p_now timestamptz DEFAULT NULL, p_notify_run_end boolean DEFAULT true)
  RETURNS TABLE (outcome text, run_status text, unconfirmed text, unblocked integer,
                 step_status text)
  LANGUAGE plpgsql AS $$
DECLARE
  v_now  timestamptz := coalesce(p_now, clock_timestamp());
  v_live record;
  v_open text;
BEGIN
  IF p_now IS NOT NULL THEN
    PERFORM set_config('flows.now', CAST(p_now AS text), true);
  END IF;
  SELECT * INTO v_live
    FROM flows.lock_live_attempt(p_run_id, p_step_id, p_attempt, p_lease_id, v_now);
  IF v_live.outcome <> 'ok' THEN
    RETURN QUERY SELECT v_live.outcome, v_live.run_status, NULL::text, 0, NULL::text;
    RETURN;
  END IF;
  SELECT surface_path INTO v_open FROM flows.effect_elections
   WHERE run_id = p_run_id AND step_id = p_step_id AND attempt = p_attempt AND NOT confirmed
   ORDER BY elected_seq
   LIMIT 1;
  IF FOUND THEN
    RETURN QUERY SELECT 'effect_unconfirmed'::text, v_live.run_status, v_open, 0, NULL::text;
    RETURN;
  END IF;
  RETURN QUERY
    SELECT 'ok'::text, s.run_status, NULL::text, s.unblocked, s.step_status
      FROM flows.succeed_fenced(p_run_id, p_step_id, p_attempt, p_lease_id, v_live.run_status,
                                p_step_output, p_succeeded_status, NULL, p_completed,
                                p_run_completed, v_now, p_notify_run_end) s;
END
$$;

-- An attempt's success once the caller holds its fence (flows.lock_live_attempt answered 'ok' with
-- p_run_status) and no election of the attempt is open: the step's end, what the success readies,
-- the entries (p_confirmed first when given: the effect.confirmed of an election the caller
-- confirmed just before; then step.completed, its effects filled in here, listed in the order the
-- elections were made; then run.completed when the run ended), all in one INSERT, and the NOTIFY
-- (flows_work when it readied a step, else flows_runs when the run ended and p_notify_run_end).
-- Answers the run's status after, the count of readied steps and the step status written.
CREATE OR REPLACE FUNCTION flows.succeed_fenced(
    p_run_id text, p_step_id text, p_attempt integer, p_lease_id text, p_run_status text,
    p_step_output jsonb, p_succeeded_status text, p_confirmed jsonb, p_completed jsonb,
    p_run_completed jsonb, p_now timestamptz, p_notify_run_end boolean)
  RETURNS TABLE (run_status text, unblocked integer, step_status text)
  LANGUAGE plpgsql AS $$
DECLARE
  v_after       record;
  v_effects     jsonb;
  v_step_status text;
BEGIN
  UPDATE flows.steps
     SET status = CAST(p_succeeded_status AS flows.step_status),
         last_reason = 'success',
         output = p_step_output,
         lease_id = NULL, lease_deadline = NULL, lease_ms = NULL, worker_id = NULL,
         updated_at = p_now
   WHERE run_id = p_run_id AND step_id = p_step_id AND status = 'running'
     AND attempts = p_attempt AND lease_id = p_lease_id AND lease_deadline > p_now
  RETURNING CAST(status AS text) INTO v_step_status;
  SELECT coalesce(jsonb_agg(jsonb_build_object('surfacePath', surface_path,
                                               'idempotencyKey', idempotency_key)
                            ORDER BY elected_seq), '[]'::jsonb)
    INTO v_effects
    FROM flows.effect_elections
   WHERE run_id = p_run_id AND step_id = p_step_id AND attempt = p_attempt AND confirmed;
  SELECT * INTO v_after FROM flows.after_success(p_run_id, p_run_status, p_now);
  -- Every entry in one statement, in journal order (a VALUES list is read in order, so seq
  -- follows it).
  INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
  SELECT p_now, p_run_id, e.entry_type, e.step_id, e.attempt, e.payload
    FROM (VALUES ('effect.confirmed'::flows.entry_type, p_step_id, p_attempt, p_confirmed,
                  p_confirmed IS NOT NULL),
                 ('step.completed'::flows.entry_type, p_step_id, p_attempt,
                  p_completed || jsonb_build_object('effects', v_effects), true),
                 ('run.completed'::flows.entry_type, NULL, NULL, p_run_completed,
                  v_after.run_done))
           AS e (entry_type, step_id, attempt, payload, journaled)
   WHERE e.journaled;
  IF v_after.unblocked > 0 THEN
    -- Work became ready: claimers (and the run's watchers) in other processes.
    PERFORM pg_notify('flows_work', p_run_id);
  ELSIF v_after.run_done AND p_notify_run_end THEN
    -- A run that ended leaves no work to claim (a suspended parent is readied, and claimers told,
    -- by wake_suspended_parent): its watchers only, so no claimer or reconciler wakes for it.
    PERFORM pg_notify('flows_runs', p_run_id);
  END IF;
  RETURN QUERY SELECT CASE WHEN v_after.run_done THEN 'succeeded' ELSE p_run_status END,
                      v_after.unblocked, v_step_status;
END
$$;

-- A durable call's end in one round trip: the fence, then its election at p_surface confirmed and
-- the attempt completed with success (flows.succeed_fenced, which journals effect.confirmed with
-- the success's entries), at one instant. Every refusal is found before anything is written. The
-- run's end is not notified: the one waiting for an inline call's run is the body that made the
-- call, in the process that sends this statement. p_now is the journal's clock (NULL: the database
-- clock), and when given the transaction's flows.now too. outcome: 'ok' (with the run's status
-- after, the step status written and the count of readied steps), or the refusal: 'run_not_found',
-- 'run_terminal', 'lease_conflict', 'effect_not_recorded', 'effect_unconfirmed'.
-- Generic plans only: every statement here and in what it calls takes values of one shape.
CREATE OR REPLACE FUNCTION flows.confirm_and_succeed(
    p_run_id text, p_step_id text, p_attempt integer, p_lease_id text, p_surface text,
    p_confirm_output jsonb, p_step_output jsonb, p_succeeded_status text,
    p_confirmed jsonb, p_completed jsonb, p_run_completed jsonb, p_now timestamptz)
  RETURNS TABLE (outcome text, run_status text, step_status text, unblocked integer)
  LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_now       timestamptz := coalesce(p_now, clock_timestamp());
  v_live      record;
  v_confirmed boolean;
  v_attempt   integer;
BEGIN
  IF p_now IS NOT NULL THEN
    PERFORM set_config('flows.now', CAST(p_now AS text), true);
  END IF;
  SELECT * INTO v_live
    FROM flows.lock_live_attempt(p_run_id, p_step_id, p_attempt, p_lease_id, v_now);
  IF v_live.outcome <> 'ok' THEN
    RETURN QUERY SELECT v_live.outcome, v_live.run_status, NULL::text, 0;
    RETURN;
  END IF;
  SELECT e.confirmed, e.attempt INTO v_confirmed, v_attempt FROM flows.effect_elections e
   WHERE e.run_id = p_run_id AND e.step_id = p_step_id AND e.surface_path = p_surface
     FOR NO KEY UPDATE;
  IF NOT FOUND OR v_attempt <> p_attempt THEN
    RETURN QUERY SELECT 'effect_not_recorded'::text, v_live.run_status, NULL::text, 0;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM flows.effect_elections
              WHERE run_id = p_run_id AND step_id = p_step_id AND attempt = p_attempt
                AND surface_path <> p_surface AND NOT confirmed) THEN
    RETURN QUERY SELECT 'effect_unconfirmed'::text, v_live.run_status, NULL::text, 0;
    RETURN;
  END IF;
  IF NOT v_confirmed THEN
    UPDATE flows.effect_elections
       SET confirmed = true, output = p_confirm_output, confirmed_at = v_now
     WHERE run_id = p_run_id AND step_id = p_step_id AND surface_path = p_surface;
  END IF;
  RETURN QUERY
    SELECT 'ok'::text, s.run_status, s.step_status, s.unblocked
      FROM flows.succeed_fenced(p_run_id, p_step_id, p_attempt, p_lease_id, v_live.run_status,
                                p_step_output, p_succeeded_status,
                                CASE WHEN v_confirmed THEN NULL ELSE p_confirmed END,
                                p_completed, p_run_completed, v_now, false) s;
END
$$;

-- A body's success with its last memos, in one round trip: the fence, then each memo as the memo
-- fast path writes it (the election inserted confirmed, effect.recorded then effect.confirmed, in
-- the memos' order), then flows.succeed_attempt, all at one instant; so the memos cost no
-- transaction of their own and step.completed lists them among its effects. The memos are the
-- caller's, for distinct surfaces its step declares, all of one idempotency key. When one of
-- their elections holds already nothing is written and the outcome is 'memos_held': the caller
-- then journals the memos one by one (which answers each exactly) and succeeds after. A refusal
-- of the success itself after the memos keeps them, as two transactions in a row would.
-- Otherwise outcome and columns are flows.succeed_attempt's.
CREATE OR REPLACE FUNCTION flows.succeed_after_memos(
    p_run_id text, p_step_id text, p_attempt integer, p_lease_id text,
    p_surfaces text[], p_idempotency_key text, p_outputs text[], p_recorded text[],
    p_confirmed text[], p_step_output jsonb, p_succeeded_status text, p_completed jsonb,
    p_run_completed jsonb, p_now timestamptz)
  RETURNS TABLE (outcome text, run_status text, unconfirmed text, unblocked integer,
                 step_status text)
  LANGUAGE plpgsql AS $$
DECLARE
  v_now  timestamptz := coalesce(p_now, clock_timestamp());
  v_live record;
BEGIN
  SELECT * INTO v_live
    FROM flows.lock_live_attempt(p_run_id, p_step_id, p_attempt, p_lease_id, v_now);
  IF v_live.outcome <> 'ok' THEN
    RETURN QUERY SELECT v_live.outcome, v_live.run_status, NULL::text, 0, NULL::text;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM flows.effect_elections
              WHERE run_id = p_run_id AND step_id = p_step_id
                AND surface_path = ANY (p_surfaces)) THEN
    RETURN QUERY SELECT 'memos_held'::text, v_live.run_status, NULL::text, 0, NULL::text;
    RETURN;
  END IF;
  INSERT INTO flows.effect_elections (run_id, step_id, surface_path, attempt, idempotency_key,
                                      confirmed, output, recorded_at, confirmed_at)
  SELECT p_run_id, p_step_id, m.surface, p_attempt, p_idempotency_key, true,
         CAST(m.output AS jsonb), v_now, v_now
    FROM unnest(p_surfaces, p_outputs) WITH ORDINALITY AS m(surface, output, ord)
   ORDER BY m.ord;
  INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
  SELECT v_now, p_run_id, x.entry_type, p_step_id, p_attempt, x.payload
    FROM unnest(p_recorded, p_confirmed) WITH ORDINALITY AS m(recorded, confirmed, ord)
   CROSS JOIN LATERAL (VALUES (1, CAST('effect.recorded' AS flows.entry_type),
                               CAST(m.recorded AS jsonb)),
                              (2, CAST('effect.confirmed' AS flows.entry_type),
                               CAST(m.confirmed AS jsonb))) AS x(n, entry_type, payload)
   ORDER BY m.ord, x.n;
  RETURN QUERY
    SELECT s.outcome, s.run_status, s.unconfirmed, s.unblocked, s.step_status
      FROM flows.succeed_attempt(p_run_id, p_step_id, p_attempt, p_lease_id, p_step_output,
                                 p_succeeded_status, p_completed, p_run_completed, v_now) s;
END
$$;


-- A child run is in its parent's queue whatever its admission says (V14: runs.queue), so a flow's
-- whole tree is served by the root's queue; the WHEN keeps root inserts free of it.
CREATE OR REPLACE FUNCTION flows.run_inherits_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT p.queue INTO NEW.queue FROM flows.runs p WHERE p.run_id = NEW.parent_run_id;
  IF NEW.queue IS NULL THEN
    NEW.queue := 'default';
  END IF;
  RETURN NEW;
END
$$;
DROP TRIGGER IF EXISTS runs_inherit_queue ON flows.runs;
CREATE TRIGGER runs_inherit_queue
  BEFORE INSERT ON flows.runs
  FOR EACH ROW WHEN (NEW.parent_run_id IS NOT NULL)
  EXECUTE FUNCTION flows.run_inherits_queue();

-- Retention (V15). Rows of runs, steps and the journal are deleted only by flows.prune_runs, for
-- the runs its audit record (flows.pruned_runs) names in the same transaction; any other DELETE is
-- refused. Statement triggers over the deleted rows: one check per statement, not per row, and
-- one look-up per run deleted, not per row (a run's journal is dozens of rows).
CREATE OR REPLACE FUNCTION flows.refuse_delete_outside_prune() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  v_run text;
BEGIN
  SELECT o.run_id INTO v_run
    FROM (SELECT DISTINCT d.run_id FROM old_rows d) o
   WHERE NOT EXISTS (SELECT 1 FROM flows.prunes p JOIN flows.pruned_runs pr USING (prune_id)
                      WHERE p.tx = pg_current_xact_id() AND pr.run_id = o.run_id)
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'flows.%: DELETE refused for run %: rows go only with their run, by flows.prune_runs',
      TG_TABLE_NAME, v_run USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS journal_append_only ON flows.journal_entries;
CREATE TRIGGER journal_append_only
  BEFORE UPDATE ON flows.journal_entries
  FOR EACH ROW EXECUTE FUNCTION flows.refuse_change();
DROP TRIGGER IF EXISTS journal_delete_only_by_prune ON flows.journal_entries;
CREATE TRIGGER journal_delete_only_by_prune
  AFTER DELETE ON flows.journal_entries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_delete_outside_prune();
DROP TRIGGER IF EXISTS steps_no_delete ON flows.steps;
CREATE TRIGGER steps_no_delete
  AFTER DELETE ON flows.steps REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_delete_outside_prune();
DROP TRIGGER IF EXISTS runs_no_delete ON flows.runs;
CREATE TRIGGER runs_no_delete
  AFTER DELETE ON flows.runs REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_delete_outside_prune();
DROP TRIGGER IF EXISTS mcp_task_state_delete_only_by_prune ON flows.mcp_task_state;
CREATE TRIGGER mcp_task_state_delete_only_by_prune
  AFTER DELETE ON flows.mcp_task_state REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_delete_outside_prune();
DROP TRIGGER IF EXISTS effects_keep_confirmed ON flows.effect_elections;
CREATE TRIGGER effects_keep_confirmed
  AFTER DELETE ON flows.effect_elections REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_confirmed_effect_delete();

-- Removes ended run trees (dev.flows.kernel.journal.PruneRequest states the rule; MemoryRetention
-- is the in-memory side): roots that ended before p_now - p_older_than, oldest first, at most
-- p_limit of them (NULL: all), each with every descendant ended and none of its runs named by a
-- run outside the tree as the run it reruns. Writes the audit record first, then deletes; a dry
-- run only answers. Candidates another prune holds are skipped. Set-based: candidates are taken
-- (locked) a chunk at a time in age order, every chunk's trees judged in one statement, and each
-- table's rows deleted in one statement for the whole batch.
CREATE OR REPLACE FUNCTION flows.prune_runs(
    p_older_than interval, p_by text, p_limit integer, p_dry_run boolean,
    p_now timestamptz DEFAULT NULL)
  RETURNS TABLE (pruned bigint, root_ids text[], run_count integer, entry_count bigint)
  LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := coalesce(p_now, clock_timestamp());
  v_chunk_max CONSTANT integer := 1000;
  v_roots text[] := '{}';
  v_runs text[] := '{}';
  v_chunk text[];
  v_ok_roots text[];
  v_ok_runs text[];
  v_after_at timestamptz := '-infinity';
  v_after_seq bigint := -1;
  v_want integer;
  v_entries bigint;
  v_prune bigint;
BEGIN
  IF p_older_than < interval '0' OR (p_limit IS NOT NULL AND p_limit < 1) THEN
    RAISE EXCEPTION 'flows.prune_runs: period % and batch % must not be negative', p_older_than,
      p_limit USING ERRCODE = 'invalid_parameter_value';
  END IF;
  LOOP
    v_want := least(v_chunk_max, coalesce(p_limit - cardinality(v_roots), v_chunk_max));
    EXIT WHEN v_want <= 0;
    SELECT array_agg(c.run_id ORDER BY c.completed_at, c.created_seq),
           (array_agg(c.completed_at ORDER BY c.completed_at DESC, c.created_seq DESC))[1],
           (array_agg(c.created_seq ORDER BY c.completed_at DESC, c.created_seq DESC))[1]
      INTO v_chunk, v_after_at, v_after_seq
      FROM (SELECT r.run_id, r.completed_at, r.created_seq
              FROM flows.runs r
             WHERE r.parent_run_id IS NULL
               AND r.completed_at IS NOT NULL
               AND r.completed_at < v_now - p_older_than
               AND (r.completed_at, r.created_seq) > (v_after_at, v_after_seq)
             ORDER BY r.completed_at, r.created_seq
             LIMIT v_want
               FOR UPDATE OF r SKIP LOCKED) c;
    EXIT WHEN v_chunk IS NULL;
    WITH RECURSIVE tree (root, run_id) AS (
      SELECT c, c FROM unnest(v_chunk) c
      UNION ALL
      SELECT t.root, r.run_id FROM flows.runs r JOIN tree t ON r.parent_run_id = t.run_id),
    kept AS (
      SELECT t.root FROM tree t JOIN flows.runs r ON r.run_id = t.run_id
       WHERE r.completed_at IS NULL
      UNION
      SELECT t.root FROM tree t JOIN flows.runs k ON k.rerun_of = t.run_id
       WHERE NOT EXISTS (SELECT 1 FROM tree o WHERE o.root = t.root AND o.run_id = k.run_id))
    SELECT coalesce(array_agg(t.root) FILTER (WHERE t.root = t.run_id), '{}'),
           coalesce(array_agg(t.run_id), '{}')
      INTO v_ok_roots, v_ok_runs
      FROM tree t
     WHERE NOT EXISTS (SELECT 1 FROM kept k WHERE k.root = t.root);
    v_roots := v_roots || ARRAY(SELECT u.c FROM unnest(v_chunk) WITH ORDINALITY AS u(c, o)
                                 WHERE u.c = ANY (v_ok_roots) ORDER BY u.o);
    v_runs := v_runs || v_ok_runs;
  END LOOP;
  SELECT count(*) INTO v_entries FROM flows.journal_entries j WHERE j.run_id = ANY (v_runs);
  IF p_dry_run OR cardinality(v_roots) = 0 THEN
    RETURN QUERY SELECT NULL::bigint, v_roots, cardinality(v_runs), v_entries;
    RETURN;
  END IF;
  INSERT INTO flows.prunes (at, pruned_by, older_than, roots, runs, entries, tx)
  VALUES (v_now, p_by, p_older_than, cardinality(v_roots), cardinality(v_runs), v_entries,
          pg_current_xact_id())
  RETURNING prunes.prune_id INTO v_prune;
  INSERT INTO flows.pruned_runs (prune_id, run_id, parent_run_id, name, status, created_at,
                                 completed_at)
  SELECT v_prune, r.run_id, r.parent_run_id, r.name, r.status, r.created_at, r.completed_at
    FROM flows.runs r WHERE r.run_id = ANY (v_runs);
  DELETE FROM flows.step_wait_notes w WHERE w.run_id = ANY (v_runs);
  DELETE FROM flows.signal_mailbox m WHERE m.run_id = ANY (v_runs);
  DELETE FROM flows.mcp_task_state t WHERE t.run_id = ANY (v_runs);
  DELETE FROM flows.live_text l WHERE l.run_id = ANY (v_runs);
  DELETE FROM flows.effect_elections e WHERE e.run_id = ANY (v_runs);
  DELETE FROM flows.journal_entries j WHERE j.run_id = ANY (v_runs);
  DELETE FROM flows.steps s WHERE s.run_id = ANY (v_runs);
  DELETE FROM flows.runs r WHERE r.run_id = ANY (v_runs);
  RETURN QUERY SELECT v_prune, v_roots, cardinality(v_runs), v_entries;
END
$$;

-- Sends signal p_name with p_payload to run p_run_id (the Journal's sendSignal, and plain SQL's
-- way to send one): kept in the run's mailbox for that name until a body takes it. Under the
-- run's lock, as every verb that changes a run: either a suspending attempt sees the signal
-- pending and readies its step itself, or this finds the step suspended and readies it (with the
-- NOTIFY a claimer waits for). With p_key, a second send with the same key to the same run sends
-- nothing and answers the first (deduped). Refused: no such run ('run_not_found: ...', SQLSTATE
-- P0002), an ended run ('run_terminal: ...', SQLSTATE 55000), a bad name or key (check
-- constraints). p_now: the journal's clock (NULL: the database's).
CREATE OR REPLACE FUNCTION flows.send_signal(
    p_run_id text, p_name text, p_payload jsonb DEFAULT 'null', p_key text DEFAULT NULL,
    p_now timestamptz DEFAULT NULL)
  RETURNS TABLE (run_id text, name text, seq bigint, deduped boolean)
  LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := coalesce(p_now, clock_timestamp());
  v_run flows.runs%ROWTYPE;
  v_old flows.signal_mailbox%ROWTYPE;
  v_seq bigint;
BEGIN
  SELECT * INTO v_run FROM flows.runs r WHERE r.run_id = p_run_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'run_not_found: no run %', p_run_id USING ERRCODE = 'P0002';
  END IF;
  -- A keyed signal sent before is answered whatever the run's state: a retry after the run ended
  -- (the signal taken, the body done) is the same request, already done.
  IF p_key IS NOT NULL THEN
    SELECT * INTO v_old FROM flows.signal_mailbox m
     WHERE m.run_id = p_run_id AND m.dedup_key = p_key;
    IF FOUND THEN
      RETURN QUERY SELECT v_old.run_id, v_old.name, v_old.seq, true;
      RETURN;
    END IF;
  END IF;
  IF v_run.tombstone OR v_run.status IN ('succeeded', 'failed', 'canceled') THEN
    RAISE EXCEPTION 'run_terminal: run % has already ended (%): a signal is delivered only to a run that has not ended',
      p_run_id, v_run.status USING ERRCODE = '55000';
  END IF;
  SELECT coalesce(max(m.seq), 0) + 1 INTO v_seq FROM flows.signal_mailbox m
   WHERE m.run_id = p_run_id AND m.name = p_name;
  INSERT INTO flows.signal_mailbox (run_id, name, seq, payload, dedup_key, sent_at)
  VALUES (p_run_id, p_name, v_seq, coalesce(p_payload, 'null'::jsonb), p_key, v_now);
  UPDATE flows.steps s
     SET not_before = v_now, updated_at = v_now
   WHERE s.run_id = p_run_id
     AND s.status = 'ready'
     AND s.last_reason = 'suspended'
     AND s.not_before > v_now;
  IF FOUND THEN
    PERFORM pg_notify('flows_work', p_run_id);
  END IF;
  RETURN QUERY SELECT p_run_id, p_name, v_seq, false;
END
$$;

-- An output is kept once, in its confirmed effect election: an effect.confirmed entry whose output
-- is its election's holds none, and a step.completed whose output is an election's of the same
-- attempt (or a step.resolved whose output is one of its step's) names it (outputOf) instead.
-- Every write path passes here; entries_of_run.sql puts the output back, so readers see whole
-- payloads.
CREATE OR REPLACE FUNCTION flows.journal_output_once() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE v_surface text;
BEGIN
  IF NEW.entry_type = 'effect.confirmed' AND NEW.payload ? 'output' THEN
    PERFORM 1 FROM flows.effect_elections e
     WHERE e.run_id = NEW.run_id AND e.step_id = NEW.step_id
       AND e.surface_path = NEW.payload ->> 'surfacePath' AND e.confirmed
       AND e.output = NEW.payload -> 'output';
    IF FOUND THEN NEW.payload := NEW.payload - 'output'; END IF;
  ELSIF NEW.entry_type IN ('step.completed', 'step.resolved') AND NEW.payload ? 'output' THEN
    -- A step.resolved has no attempt: the operator's output confirmed its open elections, in the
    -- same transaction, before it was journaled.
    SELECT e.surface_path INTO v_surface FROM flows.effect_elections e
     WHERE e.run_id = NEW.run_id AND e.step_id = NEW.step_id
       AND (e.attempt = NEW.attempt OR NEW.entry_type = 'step.resolved')
       AND e.confirmed AND e.output = NEW.payload -> 'output'
     LIMIT 1;
    IF FOUND THEN
      NEW.payload := (NEW.payload - 'output') || jsonb_build_object('outputOf', v_surface);
    END IF;
  END IF;
  RETURN NEW;
END
$$;
DROP TRIGGER IF EXISTS journal_output_once ON flows.journal_entries;
-- Only payloads past 2 KiB are looked at: a small output costs less stored
-- twice than the lookup would cost on every memo and every step's end.
CREATE TRIGGER journal_output_once BEFORE INSERT ON flows.journal_entries
  FOR EACH ROW WHEN (NEW.entry_type IN ('effect.confirmed', 'step.completed', 'step.resolved')
                     AND pg_column_size(NEW.payload) > 2048)
  EXECUTE FUNCTION flows.journal_output_once();

-- A succeeded step's output equal to a confirmed election's of the same attempt (an MCP call's
-- receipt) is kept once, in the election: the step row names it (output_of) and holds no copy.
CREATE OR REPLACE FUNCTION flows.step_output_once() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE v_surface text;
BEGIN
  IF NEW.status <> 'succeeded' THEN
    NEW.output_of := NULL;
  ELSIF NEW.output IS NOT NULL THEN
    NEW.output_of := NULL;
    SELECT e.surface_path INTO v_surface FROM flows.effect_elections e
     WHERE e.run_id = NEW.run_id AND e.step_id = NEW.step_id AND e.attempt = NEW.attempts
       AND e.confirmed AND e.output = NEW.output
     LIMIT 1;
    IF FOUND THEN
      NEW.output := NULL;
      NEW.output_of := v_surface;
    END IF;
  END IF;
  RETURN NEW;
END
$$;
DROP TRIGGER IF EXISTS steps_output_once ON flows.steps;
-- As above, only a large output is looked at; a row that names an election is always passed here,
-- so a later write of its status or output clears the name.
CREATE TRIGGER steps_output_once
  BEFORE INSERT OR UPDATE OF output, status ON flows.steps
  FOR EACH ROW WHEN (NEW.output_of IS NOT NULL
                     OR (NEW.status = 'succeeded' AND pg_column_size(NEW.output) > 2048))
  EXECUTE FUNCTION flows.step_output_once();

-- A step's output wherever it is kept: its row, or the election its row names.
CREATE OR REPLACE FUNCTION flows.step_output(
    p_run_id text, p_step_id text, p_output jsonb, p_output_of text)
  RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN p_output_of IS NULL THEN p_output
              ELSE (SELECT e.output FROM flows.effect_elections e
                     WHERE e.run_id = p_run_id AND e.step_id = p_step_id
                       AND e.surface_path = p_output_of) END
$$;

-- A claim in one statement (one round trip, autocommit): the ready steps a worker may take (kinds,
-- routes or route prefixes, queues, running runs, backoff passed by the journal's clock: p_now
-- when a test clock gives one, else the database's; rows another claimer holds skipped, never
-- waited on) each get their next attempt, leased to the worker, and step.attempt.started
-- journaled, in pick order. The lease id and idempotency key are derived here as
-- dev.flows.kernel.keys.Keys derives them (the caller checks they agree); a step's lease is its
-- spec's leaseMs, else p_default_lease_ms. Answers each claimed step as it was when picked, with
-- the attempt opened for it. A function with generic plans so the claim is planned once per
-- connection: as a statement it got a custom plan on every call, and planning it read more pages
-- the bigger the journal (the planner's estimates of the steps' and runs' indexes).
CREATE OR REPLACE FUNCTION flows.claim_open(
    p_kinds text[], p_any_route boolean, p_routes text[], p_route_prefixes text[],
    p_any_queue boolean, p_queues text[], p_capacity integer, p_default_lease_ms bigint,
    p_running_status text, p_worker_id text, p_now timestamptz)
  RETURNS TABLE (run_id text, step_id text, kind flows.step_kind, status flows.step_status,
                 depends_on text[], max_iterations integer, spec jsonb, attempts integer,
                 suspensions integer, lease_id text, lease_deadline timestamptz, lease_ms bigint,
                 worker_id text, not_before timestamptz, last_reason flows.completion_reason,
                 output jsonb, parent_run_id text, new_attempt integer, new_lease_id text,
                 new_deadline timestamptz, new_lease_ms bigint, idempotency_key text,
                 new_status text)
  LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH clock AS MATERIALIZED (
    SELECT coalesce(p_now, clock_timestamp()) AS now
  ),
  picked AS MATERIALIZED (
    SELECT s.run_id, s.step_id, s.kind, s.status, s.depends_on, s.max_iterations, s.spec,
           s.attempts, s.suspensions, s.lease_id, s.lease_deadline, s.lease_ms, s.worker_id,
           s.not_before, s.last_reason,
           flows.step_output(s.run_id, s.step_id, s.output, s.output_of) AS output,
           s.created_seq, r.parent_run_id, (SELECT c.now FROM clock c) AS now
      FROM flows.steps s
      JOIN flows.runs r ON r.run_id = s.run_id
     WHERE s.status = 'ready'
       -- A subquery, so "now" is a parameter of the scan: steps_claimable is read from its start
       -- and stops at the first step still backing off, however many are.
       AND s.not_before <= (SELECT c.now FROM clock c)
       AND CAST(s.kind AS text) = ANY(p_kinds)
       AND (p_any_route OR s.route = ANY(p_routes) OR s.route ^@ ANY(p_route_prefixes))
       AND r.status = 'running'
       AND (p_any_queue OR r.queue = ANY(p_queues))
     ORDER BY s.not_before, s.created_seq
     LIMIT p_capacity
       FOR NO KEY UPDATE OF s SKIP LOCKED
  ),
  keyed AS (
    SELECT p.*,
           p.attempts + 1 AS new_attempt,
           coalesce(CAST(p.spec ->> 'leaseMs' AS bigint), p_default_lease_ms) AS new_lease_ms,
           'lease_' || left(encode(sha256(convert_to(p.run_id, 'UTF8') || decode('00', 'hex')
                                          || convert_to(p.step_id, 'UTF8') || decode('00', 'hex')
                                          || convert_to(CAST(p.attempts + 1 AS text), 'UTF8')),
                                   'hex'), 32) AS new_lease_id,
           encode(sha256(convert_to(p.run_id, 'UTF8') || decode('00', 'hex')
                         || convert_to(p.step_id, 'UTF8')), 'hex') AS idempotency_key
      FROM picked p
  ),
  leased AS MATERIALIZED (
    SELECT k.*, k.now + k.new_lease_ms * interval '1 millisecond' AS new_deadline
      FROM keyed k
  ),
  opened AS (
    UPDATE flows.steps s
       SET status = CAST(p_running_status AS flows.step_status),
           attempts = l.new_attempt,
           lease_id = l.new_lease_id,
           lease_deadline = l.new_deadline,
           lease_ms = l.new_lease_ms,
           worker_id = p_worker_id,
           updated_at = l.now
      FROM leased l
     WHERE s.run_id = l.run_id
       AND s.step_id = l.step_id
       AND s.status = 'ready'
       AND s.attempts = l.attempts
    RETURNING s.run_id, s.step_id, CAST(s.status AS text) AS new_status
  ),
  journaled AS (
    INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
    SELECT l.now, l.run_id, 'step.attempt.started', l.step_id, l.new_attempt,
           jsonb_build_object('stepKind', l.kind, 'idempotencyKey', l.idempotency_key,
                              'leaseId', l.new_lease_id,
                              'leaseDeadline', flows.iso_instant(l.new_deadline),
                              'workerId', p_worker_id, 'stepId', l.step_id,
                              'attempt', l.new_attempt)
      FROM leased l
      JOIN opened o ON o.run_id = l.run_id AND o.step_id = l.step_id
     ORDER BY l.not_before, l.created_seq
    RETURNING 1
  )
  SELECT l.run_id, l.step_id, l.kind, l.status, l.depends_on, l.max_iterations, l.spec,
         l.attempts, l.suspensions, l.lease_id, l.lease_deadline, l.lease_ms, l.worker_id,
         l.not_before, l.last_reason, l.output, l.parent_run_id, l.new_attempt, l.new_lease_id,
         l.new_deadline, l.new_lease_ms, l.idempotency_key, o.new_status
    FROM leased l
    JOIN opened o ON o.run_id = l.run_id AND o.step_id = l.step_id
   ORDER BY l.not_before, l.created_seq;
END
$$;

-- A run that ends other than succeeded (canceled, failed) may cut a model turn off mid-stream: its
-- worker never clears that turn's partial text, so the run's end does. A run that succeeded has no
-- running turn (each turn's answer was journaled, and its text cleared, first), so it pays nothing.
CREATE OR REPLACE FUNCTION flows.forget_live_text() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM flows.live_text WHERE run_id = NEW.run_id;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS runs_forget_live_text ON flows.runs;
CREATE TRIGGER runs_forget_live_text AFTER UPDATE ON flows.runs
  FOR EACH ROW WHEN (OLD.completed_at IS NULL AND NEW.completed_at IS NOT NULL
                     AND NEW.status <> 'succeeded')
  EXECUTE FUNCTION flows.forget_live_text();
