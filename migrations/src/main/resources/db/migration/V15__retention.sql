-- Retention: ended run trees past a retention period are removed with their steps, effect
-- elections, wait notes and journal entries by flows.prune_runs (R__journal_functions.sql), the one
-- path by which journal rows are ever deleted. Each prune writes its audit record first: who, when,
-- with which period, and every run it removed. The delete guards (also in R__) let a DELETE through
-- only for runs that the current transaction's prune recorded.

CREATE TABLE flows.prunes (
  prune_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at         timestamptz NOT NULL,
  pruned_by  text NOT NULL CHECK (pruned_by <> ''),
  older_than interval NOT NULL,
  roots      integer NOT NULL CHECK (roots >= 1),
  runs       integer NOT NULL CHECK (runs >= roots),
  entries    bigint NOT NULL CHECK (entries >= 0),
  -- The pruning transaction: the guards accept deletes of this prune's runs in it only.
  tx         xid8 NOT NULL
);

CREATE TABLE flows.pruned_runs (
  prune_id     bigint NOT NULL REFERENCES flows.prunes (prune_id),
  run_id       text NOT NULL,
  parent_run_id text,
  name         text NOT NULL,
  status       flows.run_status NOT NULL,
  created_at   timestamptz NOT NULL,
  completed_at timestamptz NOT NULL,
  PRIMARY KEY (prune_id, run_id)
);
CREATE INDEX pruned_runs_by_run ON flows.pruned_runs (run_id);

CREATE TRIGGER prunes_append_only
  BEFORE UPDATE OR DELETE ON flows.prunes
  FOR EACH ROW EXECUTE FUNCTION flows.refuse_change();
CREATE TRIGGER prunes_no_truncate
  BEFORE TRUNCATE ON flows.prunes
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_change();
CREATE TRIGGER pruned_runs_append_only
  BEFORE UPDATE OR DELETE ON flows.pruned_runs
  FOR EACH ROW EXECUTE FUNCTION flows.refuse_change();
CREATE TRIGGER pruned_runs_no_truncate
  BEFORE TRUNCATE ON flows.pruned_runs
  FOR EACH STATEMENT EXECUTE FUNCTION flows.refuse_change();

-- Finds the oldest ended roots without a scan of every run.
CREATE INDEX runs_ended_roots ON flows.runs (completed_at, created_seq)
  WHERE parent_run_id IS NULL AND completed_at IS NOT NULL;
-- The guards find the current transaction's prune by it.
CREATE INDEX prunes_by_tx ON flows.prunes (tx);
