-- The console's list page on a journal of millions of runs: its search and its live overview.
--
-- The search box finds a run by run id, admission key or the idempotency key of one of its calls;
-- the idempotency key had no index (elections are keyed by run, step and surface path), so finding
-- a run by it read every election in the journal.
CREATE INDEX effect_elections_by_key ON flows.effect_elections (idempotency_key);

-- The overview counts the runs that ended in its window (succeeded, failed) per bucket: the runs
-- ended since a time, children too (runs_ended_roots has only roots).
CREATE INDEX runs_ended ON flows.runs (completed_at) WHERE completed_at IS NOT NULL;

-- The overview's rows: when each run started and ended, its flow, queue and status. A plain
-- projection of flows.runs (runs_overview adds every run's step counts, which the charts do not
-- need and would aggregate for every run of the window).
CREATE VIEW flows.run_activity AS
SELECT r.run_id,
       r.name,
       r.status,
       r.queue,
       r.parent_run_id,
       r.created_at,
       r.completed_at,
       r.completed_at - r.created_at AS duration
  FROM flows.runs r
 WHERE NOT r.tombstone;
