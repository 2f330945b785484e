-- flows: a read-only role for the inspection views (SURFACE.md, "SQL views" and "CLI").
--
-- Run it as the user that owns schema flows (the one `flows db migrate` ran as), e.g.
--   psql "$FLOWS_DATABASE_URL" -f ops/sql/readonly-role.sql
-- then hand the role to people or dashboards:
--   CREATE ROLE alice LOGIN PASSWORD '...' IN ROLE flows_reader;   -- or: GRANT flows_reader TO alice;
--
-- flows_reader can SELECT the views (and read the migration history, so `flows runs list --db`
-- can check the schema version) and nothing else: no table, no write. The views run with their
-- owner's rights, so the tables behind them need no grant. Safe to run again (after a migration
-- that adds a view, rerun it to grant that view too).

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'flows_reader') THEN
    CREATE ROLE flows_reader NOLOGIN;
  END IF;
END
$$;

GRANT USAGE ON SCHEMA flows TO flows_reader;
GRANT SELECT ON flows.flyway_schema_history TO flows_reader;

-- Every view in schema flows, and only views.
DO $$
DECLARE
  v record;
BEGIN
  FOR v IN SELECT table_name FROM information_schema.views WHERE table_schema = 'flows' LOOP
    EXECUTE format('GRANT SELECT ON flows.%I TO flows_reader', v.table_name);
  END LOOP;
END
$$;
