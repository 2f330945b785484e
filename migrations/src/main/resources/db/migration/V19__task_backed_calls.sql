-- Task-backed MCP calls: a server that answers a call with a task it created is polled by id
-- instead of being called again. effect.task journals the task with the call's effect (by the
-- attempt holding the election), and again when its status or status message changes;
-- effect.task.cancel journals that flows sent tasks/cancel (the call's timeout, or its run ended).

ALTER TYPE flows.entry_type ADD VALUE 'effect.task';
ALTER TYPE flows.entry_type ADD VALUE 'effect.task.cancel';

-- The new enum values cannot be used in this transaction, so the scopes are checked on their text.
ALTER TABLE flows.journal_entries DROP CONSTRAINT journal_attempt_scope;
ALTER TABLE flows.journal_entries ADD CONSTRAINT journal_attempt_scope CHECK (
  (entry_type::text IN ('step.attempt.started', 'step.completed', 'effect.recorded',
                        'effect.confirmed', 'effect.task'))
    = (attempt IS NOT NULL));
ALTER TABLE flows.journal_entries DROP CONSTRAINT journal_step_scope;
ALTER TABLE flows.journal_entries ADD CONSTRAINT journal_step_scope CHECK (
  (entry_type::text IN ('step.attempt.started', 'step.completed', 'effect.recorded',
                        'effect.confirmed', 'step.resolved', 'step.answered', 'effect.task',
                        'effect.task.cancel'))
    = (step_id IS NOT NULL));

-- A step's task as its entries tell it, kept beside them so that the reconciler's sweep for tasks
-- owed a tasks/cancel (runs ended, task still running) reads an index, not the journal.
CREATE TABLE flows.mcp_task_state (
  run_id           text NOT NULL,
  step_id          text NOT NULL,
  surface_path     text NOT NULL,
  idempotency_key  text NOT NULL,
  task_id          text NOT NULL CHECK (task_id <> ''),
  status           text NOT NULL
    CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
  status_message   text,
  poll_interval_ms bigint,
  ttl_ms           bigint,
  protocol_version text NOT NULL,
  created_attempt  integer NOT NULL CHECK (created_attempt >= 1),
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  cancel_sent_at   timestamptz,
  cancel_reason    text,
  PRIMARY KEY (run_id, step_id),
  FOREIGN KEY (run_id, step_id) REFERENCES flows.steps (run_id, step_id),
  CONSTRAINT mcp_task_cancel_whole CHECK ((cancel_sent_at IS NULL) = (cancel_reason IS NULL))
);

CREATE INDEX mcp_task_state_uncancelled ON flows.mcp_task_state (created_at, run_id, step_id)
  WHERE cancel_sent_at IS NULL AND status IN ('working', 'input_required');

-- For plain SQL and the console: every task a call was made as, with its run's status.
CREATE VIEW flows.mcp_tasks AS
SELECT t.run_id,
       t.step_id,
       split_part(t.surface_path, '/', 3) AS server,
       split_part(t.surface_path, '/', 4) AS tool,
       t.task_id,
       t.status,
       t.status_message,
       t.poll_interval_ms,
       t.ttl_ms,
       t.protocol_version,
       t.idempotency_key,
       t.created_attempt,
       t.created_at,
       t.updated_at,
       t.cancel_sent_at,
       t.cancel_reason,
       r.status AS run_status
  FROM flows.mcp_task_state t
  JOIN flows.runs r ON r.run_id = t.run_id;
