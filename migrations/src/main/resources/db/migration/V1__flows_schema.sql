-- flows schema, version 1: runs, steps, effect elections and the append-only journal.
-- Enum labels are the kernel's wire names (RunStatus, StepStatus, CompletionReason,
-- RunCompletionReason, Disposition, StepKind); the kernel's transition tables are mirrored in
-- flows.step_transitions / flows.run_transitions and enforced by triggers, so a status change the
-- kernel does not declare is refused by the database even if a journal has a bug.

CREATE TYPE flows.run_status AS ENUM ('running', 'parked', 'succeeded', 'failed', 'canceled');
CREATE TYPE flows.step_status AS ENUM
  ('waiting', 'ready', 'running', 'parked', 'succeeded', 'failed', 'canceled');
CREATE TYPE flows.completion_reason AS ENUM
  ('success', 'verification_failed', 'retries_exhausted', 'lease_expired', 'crashed', 'timeout',
   'worker_error', 'budget_exceeded', 'canceled');
CREATE TYPE flows.run_completion_reason AS ENUM
  ('success', 'step_failed', 'canceled', 'budget_exceeded');
CREATE TYPE flows.disposition AS ENUM ('step_done', 'retry', 'park');
CREATE TYPE flows.step_kind AS ENUM ('deterministic', 'llm', 'agent');
CREATE TYPE flows.entry_type AS ENUM
  ('run.spawned', 'run.cancel.requested', 'step.attempt.started', 'step.completed',
   'effect.recorded', 'effect.confirmed', 'run.completed', 'run.resumed', 'step.resolved');

-- Refuses any change to a table that is append-only (journal entries, transition tables).
CREATE FUNCTION flows.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'flows.%: % refused, the table is append-only', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'restrict_violation';
END
$$;

-- The kernel's declared transitions (dev.flows.kernel.lifecycle.StepTransition / RunTransition).
-- A test compares these rows with the Java enums so the two cannot drift apart.
CREATE TABLE flows.step_transitions (
  name        text PRIMARY KEY,
  from_status flows.step_status NOT NULL,
  to_status   flows.step_status NOT NULL
);
INSERT INTO flows.step_transitions (name, from_status, to_status) VALUES
  ('DEPENDENCIES_MET',        'waiting', 'ready'),
  ('CLAIMED',                 'ready',   'running'),
  ('COMPLETED_SUCCESS',       'running', 'succeeded'),
  ('COMPLETED_RETRY',         'running', 'ready'),
  ('COMPLETED_FAILED',        'running', 'failed'),
  ('COMPLETED_PARKED',        'running', 'parked'),
  ('LEASE_EXPIRED_RETRY',     'running', 'ready'),
  ('LEASE_EXPIRED_EXHAUSTED', 'running', 'failed'),
  ('RESOLVED',                'parked',  'ready'),
  ('RESOLVED_PERFORMED',      'parked',  'succeeded'),
  ('RESUMED',                 'failed',  'ready'),
  ('CANCELED_WAITING',        'waiting', 'canceled'),
  ('CANCELED_READY',          'ready',   'canceled'),
  ('CANCELED_RUNNING',        'running', 'canceled'),
  ('CANCELED_PARKED',         'parked',  'canceled');

-- from_status NULL: the ways a run comes to exist (spawned, or tombstoned by an early cancel).
CREATE TABLE flows.run_transitions (
  name        text PRIMARY KEY,
  from_status flows.run_status,
  to_status   flows.run_status NOT NULL
);
INSERT INTO flows.run_transitions (name, from_status, to_status) VALUES
  ('SPAWNED',             NULL,      'running'),
  ('TOMBSTONED',          NULL,      'canceled'),
  ('ALL_STEPS_SUCCEEDED', 'running', 'succeeded'),
  ('STEP_FAILED',         'running', 'failed'),
  ('STEP_PARKED',         'running', 'parked'),
  ('UNPARKED',            'parked',  'running'),
  ('RESUMED',             'failed',  'running'),
  ('CANCELED_RUNNING',    'running', 'canceled'),
  ('CANCELED_PARKED',     'parked',  'canceled');

CREATE TRIGGER step_transitions_append_only
  BEFORE UPDATE OR DELETE ON flows.step_transitions
  FOR EACH ROW EXECUTE FUNCTION flows.refuse_change();
CREATE TRIGGER step_transitions_no_truncate
  BEFORE TRUNCATE ON flows.step_transitions
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_change();
CREATE TRIGGER run_transitions_append_only
  BEFORE UPDATE OR DELETE ON flows.run_transitions
  FOR EACH ROW EXECUTE FUNCTION flows.refuse_change();
CREATE TRIGGER run_transitions_no_truncate
  BEFORE TRUNCATE ON flows.run_transitions
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_change();

CREATE TABLE flows.runs (
  run_id            text PRIMARY KEY
                    CHECK (run_id ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$'),
  -- Creation order; children and listings are ordered by it.
  created_seq       bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  name              text NOT NULL,
  status            flows.run_status NOT NULL,
  parent_run_id     text,
  admission_key     text NOT NULL UNIQUE,
  -- Canonical spec JSON (dev.flows.kernel.spec.RunSpecJson) and its hash; JSON null for a tombstone.
  spec              jsonb NOT NULL,
  spec_hash         text NOT NULL,
  created_by        text NOT NULL,
  tombstone         boolean NOT NULL DEFAULT false,
  created_at        timestamptz NOT NULL,
  completed_at      timestamptz,
  completion_reason flows.run_completion_reason,
  CONSTRAINT runs_completed_iff_terminal
    CHECK ((status IN ('succeeded', 'failed', 'canceled')) = (completed_at IS NOT NULL)),
  CONSTRAINT runs_reason_iff_completed
    CHECK ((completed_at IS NULL) = (completion_reason IS NULL)),
  CONSTRAINT runs_reason_matches_status
    CHECK (completion_reason IS NULL
           OR (status = 'succeeded' AND completion_reason = 'success')
           OR (status = 'failed' AND completion_reason IN ('step_failed', 'budget_exceeded'))
           OR (status = 'canceled' AND completion_reason = 'canceled')),
  CONSTRAINT runs_completed_after_created
    CHECK (completed_at IS NULL OR completed_at >= created_at),
  CONSTRAINT runs_tombstone_shape
    CHECK (NOT tombstone
           OR (status = 'canceled' AND parent_run_id IS NULL AND admission_key = 'tombstone:' || run_id)),
  CONSTRAINT runs_not_own_parent CHECK (parent_run_id IS DISTINCT FROM run_id)
);
CREATE INDEX runs_parent ON flows.runs (parent_run_id, created_seq) WHERE parent_run_id IS NOT NULL;

CREATE TABLE flows.steps (
  run_id          text NOT NULL REFERENCES flows.runs (run_id),
  step_id         text NOT NULL CHECK (step_id <> ''),
  -- Position in the spec.
  position        integer NOT NULL CHECK (position >= 0),
  -- Creation order over all steps (runs insert theirs in position order): claims take ready steps
  -- by (not_before, created_seq), straight from the steps_claimable index, however long the queue.
  created_seq     bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  kind            flows.step_kind NOT NULL,
  status          flows.step_status NOT NULL,
  depends_on      text[] NOT NULL,
  max_iterations  integer NOT NULL CHECK (max_iterations >= 1),
  -- Canonical step JSON (RunSpecJson.writeStep): what a claimer executes.
  spec            jsonb NOT NULL,
  -- Number of attempts opened so far; the live attempt (if any) is number `attempts`.
  attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  lease_id        text,
  lease_deadline  timestamptz,
  lease_ms        bigint CHECK (lease_ms > 0),
  worker_id       text,
  not_before      timestamptz NOT NULL,
  last_reason     flows.completion_reason,
  output          jsonb,
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (run_id, step_id),
  UNIQUE (run_id, position),
  CONSTRAINT steps_lease_iff_running
    CHECK ((status = 'running') = (lease_id IS NOT NULL)),
  CONSTRAINT steps_lease_columns_together
    CHECK ((lease_id IS NULL) = (lease_deadline IS NULL)
           AND (lease_id IS NULL) = (lease_ms IS NULL)
           AND (lease_id IS NULL) = (worker_id IS NULL)),
  CONSTRAINT steps_running_has_attempt CHECK (status <> 'running' OR attempts >= 1),
  CONSTRAINT steps_output_only_when_succeeded CHECK (output IS NULL OR status = 'succeeded'),
  CONSTRAINT steps_reason_after_attempt CHECK (last_reason IS NULL OR attempts >= 1)
);
CREATE INDEX steps_claimable ON flows.steps (not_before, created_seq) WHERE status = 'ready';
CREATE INDEX steps_leased ON flows.steps (lease_deadline) WHERE status = 'running';
-- Completions look for the waiting steps they may unblock; most runs have few.
CREATE INDEX steps_waiting ON flows.steps (run_id) WHERE status = 'waiting';

CREATE FUNCTION flows.check_step_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status NOT IN ('waiting', 'ready') OR NEW.attempts <> 0 THEN
      RAISE EXCEPTION 'flows.steps: a step is created waiting or ready with no attempt, not % with %',
        NEW.status, NEW.attempts USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.run_id <> OLD.run_id OR NEW.step_id <> OLD.step_id OR NEW.kind <> OLD.kind
     OR NEW.spec <> OLD.spec OR NEW.position <> OLD.position THEN
    RAISE EXCEPTION 'flows.steps: identity and spec of %/% are immutable', OLD.run_id, OLD.step_id
      USING ERRCODE = 'check_violation';
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
CREATE TRIGGER steps_checked_change
  BEFORE INSERT OR UPDATE ON flows.steps
  FOR EACH ROW EXECUTE FUNCTION flows.check_step_change();
CREATE TRIGGER steps_no_delete
  BEFORE DELETE ON flows.steps
  FOR EACH ROW EXECUTE FUNCTION flows.refuse_change();

CREATE FUNCTION flows.check_run_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT 1 FROM flows.run_transitions t
                    WHERE t.from_status IS NULL AND t.to_status = NEW.status) THEN
      RAISE EXCEPTION 'flows.runs: a run cannot be created %', NEW.status
        USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.run_id <> OLD.run_id OR NEW.admission_key <> OLD.admission_key
     OR NEW.spec_hash <> OLD.spec_hash OR NEW.tombstone <> OLD.tombstone
     OR NEW.parent_run_id IS DISTINCT FROM OLD.parent_run_id THEN
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
CREATE TRIGGER runs_checked_change
  BEFORE INSERT OR UPDATE ON flows.runs
  FOR EACH ROW EXECUTE FUNCTION flows.check_run_change();
CREATE TRIGGER runs_no_delete
  BEFORE DELETE ON flows.runs
  FOR EACH ROW EXECUTE FUNCTION flows.refuse_change();

-- One election per (run, step, surface path): which attempt owes the effect, and whether it was
-- performed. The idempotency key is the step's (identical for every attempt).
CREATE TABLE flows.effect_elections (
  run_id          text NOT NULL,
  step_id         text NOT NULL,
  surface_path    text NOT NULL CHECK (surface_path <> ''),
  attempt         integer NOT NULL CHECK (attempt >= 1),
  idempotency_key text NOT NULL CHECK (idempotency_key ~ '^[0-9a-f]{64}$'),
  confirmed       boolean NOT NULL DEFAULT false,
  output          jsonb,
  recorded_at     timestamptz NOT NULL,
  confirmed_at    timestamptz,
  PRIMARY KEY (run_id, step_id, surface_path),
  FOREIGN KEY (run_id, step_id) REFERENCES flows.steps (run_id, step_id),
  CONSTRAINT effects_confirmed_iff_time CHECK (confirmed = (confirmed_at IS NOT NULL)),
  CONSTRAINT effects_output_only_when_confirmed CHECK (output IS NULL OR confirmed)
);

CREATE FUNCTION flows.check_effect_change() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER effects_checked_change
  BEFORE UPDATE ON flows.effect_elections
  FOR EACH ROW EXECUTE FUNCTION flows.check_effect_change();
-- Resolving a parked step as "not performed" drops its unconfirmed elections so the next attempt
-- elects afresh; a confirmed election is the record that an effect happened and is never dropped.
CREATE FUNCTION flows.refuse_confirmed_effect_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.confirmed THEN
    RAISE EXCEPTION 'flows.effect_elections: %/% % is confirmed and cannot be deleted',
      OLD.run_id, OLD.step_id, OLD.surface_path USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN OLD;
END
$$;
CREATE TRIGGER effects_keep_confirmed
  BEFORE DELETE ON flows.effect_elections
  FOR EACH ROW EXECUTE FUNCTION flows.refuse_confirmed_effect_delete();

-- The journal: append-only. UPDATE, DELETE and TRUNCATE are refused by triggers.
CREATE TABLE flows.journal_entries (
  seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at         timestamptz NOT NULL,
  run_id     text NOT NULL REFERENCES flows.runs (run_id),
  entry_type flows.entry_type NOT NULL,
  -- step_id is set for step-scoped entries, attempt for those of one attempt (all but
  -- step.resolved); both NULL for run-scoped entries.
  step_id    text,
  attempt    integer CHECK (attempt >= 1),
  payload    jsonb NOT NULL CHECK (jsonb_typeof(payload) = 'object'),
  CONSTRAINT journal_attempt_scope CHECK (
    (entry_type IN ('step.attempt.started', 'step.completed', 'effect.recorded', 'effect.confirmed'))
      = (attempt IS NOT NULL)),
  CONSTRAINT journal_step_scope CHECK (
    (entry_type IN ('step.attempt.started', 'step.completed', 'effect.recorded', 'effect.confirmed',
                    'step.resolved'))
      = (step_id IS NOT NULL))
);
CREATE INDEX journal_by_run ON flows.journal_entries (run_id, seq);
CREATE INDEX journal_by_attempt ON flows.journal_entries (run_id, step_id, attempt)
  WHERE step_id IS NOT NULL;

CREATE TRIGGER journal_append_only
  BEFORE UPDATE OR DELETE ON flows.journal_entries
  FOR EACH ROW EXECUTE FUNCTION flows.refuse_change();
CREATE TRIGGER journal_no_truncate
  BEFORE TRUNCATE ON flows.journal_entries
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_change();

-- Inspection views (documented in SURFACE.md, "SQL views").

CREATE VIEW flows.runs_overview AS
SELECT r.run_id,
       r.name,
       r.status,
       r.parent_run_id,
       r.admission_key,
       r.tombstone,
       r.created_at,
       r.completed_at,
       r.completion_reason,
       count(s.step_id)                                  AS steps_total,
       count(s.step_id) FILTER (WHERE s.status = 'waiting')   AS steps_waiting,
       count(s.step_id) FILTER (WHERE s.status = 'ready')     AS steps_ready,
       count(s.step_id) FILTER (WHERE s.status = 'running')   AS steps_running,
       count(s.step_id) FILTER (WHERE s.status = 'parked')    AS steps_parked,
       count(s.step_id) FILTER (WHERE s.status = 'succeeded') AS steps_succeeded,
       count(s.step_id) FILTER (WHERE s.status = 'failed')    AS steps_failed,
       count(s.step_id) FILTER (WHERE s.status = 'canceled')  AS steps_canceled,
       coalesce(sum(s.attempts), 0)                      AS attempts_total
  FROM flows.runs r
  LEFT JOIN flows.steps s ON s.run_id = r.run_id
 GROUP BY r.run_id;

CREATE VIEW flows.step_attempts AS
SELECT a.run_id,
       a.step_id,
       a.attempt,
       (a.payload ->> 'stepKind')::flows.step_kind        AS kind,
       a.payload ->> 'workerId'                           AS worker_id,
       a.payload ->> 'leaseId'                            AS lease_id,
       a.payload ->> 'idempotencyKey'                     AS idempotency_key,
       a.at                                               AS started_at,
       CASE WHEN c.seq IS NULL AND s.status = 'running' AND s.attempts = a.attempt
            THEN s.lease_deadline
            ELSE (a.payload ->> 'leaseDeadline')::timestamptz END AS lease_deadline,
       c.seq IS NULL AND s.status = 'running' AND s.attempts = a.attempt AS open,
       c.at                                               AS ended_at,
       (c.payload ->> 'reason')::flows.completion_reason  AS reason,
       (c.payload ->> 'disposition')::flows.disposition   AS disposition,
       (c.payload ->> 'nextAttemptAt')::timestamptz       AS next_attempt_at
  FROM flows.journal_entries a
  JOIN flows.steps s ON s.run_id = a.run_id AND s.step_id = a.step_id
  LEFT JOIN flows.journal_entries c
    ON c.entry_type = 'step.completed'
   AND c.run_id = a.run_id AND c.step_id = a.step_id AND c.attempt = a.attempt
 WHERE a.entry_type = 'step.attempt.started';

CREATE VIEW flows.effects AS
SELECT e.run_id,
       e.step_id,
       e.surface_path,
       e.idempotency_key,
       e.attempt,
       e.confirmed,
       e.output,
       e.recorded_at,
       e.confirmed_at,
       s.status AS step_status,
       -- An unconfirmed election whose attempt is no longer running: the effect may or may not
       -- have happened (the next attempt takes it over, or an operator resolves it).
       (NOT e.confirmed AND NOT (s.status = 'running' AND s.attempts = e.attempt)) AS outcome_unknown
  FROM flows.effect_elections e
  JOIN flows.steps s ON s.run_id = e.run_id AND s.step_id = e.step_id;
