-- Which versions of a flow still have runs, and which workers serve each: what an operator reads
-- before retiring an old version's workers (flows versions FLOW, Flows.versions, the console).
--
-- A worker writes its row when it starts, refreshes it every refresh_every (its reconciler's
-- sweep), and deletes it when it stops cleanly. One that stopped refreshing (killed, partitioned)
-- is gone once three refreshes were missed by the database clock: flows.live_workers holds that
-- rule, and every reader reads through it.
CREATE TABLE flows.workers (
  worker_id      text PRIMARY KEY CHECK (length(worker_id) BETWEEN 1 AND 200),
  host           text NOT NULL,
  pid            bigint NOT NULL,
  started_at     timestamptz NOT NULL,
  last_seen      timestamptz NOT NULL,
  refresh_every  interval NOT NULL CHECK (refresh_every > interval '0'),
  queues         text[] NOT NULL,
  -- The step routes it claims (a class flow's body flow:NAME@VERSION, a single-file flow's
  -- flow:source:SHA256), and the route prefixes it accepts whole ('' for every route).
  routes         text[] NOT NULL,
  route_prefixes text[] NOT NULL
);

CREATE VIEW flows.live_workers AS
SELECT w.worker_id, w.host, w.pid, w.started_at, w.last_seen, w.refresh_every, w.queues,
       w.routes, w.route_prefixes
  FROM flows.workers w
 WHERE w.last_seen >= clock_timestamp() - w.refresh_every * 3;

-- Per flow and version: its runs not ended (root and child runs alike: each replays on the version
-- its body started with), the oldest one's start, and the live workers that accept its route. A
-- class flow's version is its route flow:NAME@VERSION; a single-file flow's runs are routed by
-- their source's hash, so two edits at one header version are two rows. A version a live worker
-- serves with no run left (a class flow's route names it) is a row with runs 0.
-- A run not ended is one without completed_at (a CHECK ties it to the status; a tombstone has it):
-- the view reads the runs not ended through this index, however many ended runs the journal holds.
CREATE INDEX runs_not_ended ON flows.runs (name, created_at) WHERE completed_at IS NULL;

CREATE VIEW flows.versions AS
WITH open_bodies AS (
  SELECT r.name AS flow,
         s.spec #>> '{agent,instruction,version}' AS version,
         s.route,
         r.created_at
    FROM flows.runs r
    JOIN flows.steps s ON s.run_id = r.run_id
   WHERE r.completed_at IS NULL
     AND s.kind = 'agent'
     AND s.spec #>> '{agent,instruction,type}' = 'flow'
),
with_runs AS (
  SELECT flow, version, route, count(*) AS runs, min(created_at) AS oldest_started_at
    FROM open_bodies
   GROUP BY flow, version, route
),
served AS (
  SELECT DISTINCT substring(r FROM '^flow:(.*)@[^@]*$') AS flow,
         substring(r FROM '@([^@]*)$') AS version,
         r AS route
    FROM flows.live_workers w, unnest(w.routes) r
   WHERE r LIKE 'flow:%@%' AND r NOT LIKE 'flow:source:%'
),
every_version AS (
  SELECT flow, version, route FROM with_runs
  UNION
  SELECT flow, version, route FROM served
)
SELECT v.flow,
       v.version,
       v.route,
       coalesce(g.runs, 0) AS runs,
       g.oldest_started_at,
       ARRAY(SELECT w.worker_id
               FROM flows.live_workers w
              WHERE v.route = ANY (w.routes)
                 OR EXISTS (SELECT 1 FROM unnest(w.route_prefixes) p WHERE starts_with(v.route, p))
              ORDER BY w.worker_id) AS workers
  FROM every_version v
  LEFT JOIN with_runs g USING (flow, version, route);
