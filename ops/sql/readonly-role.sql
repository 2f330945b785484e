-- flows: a read-only role for inspection (SURFACE.md, "SQL views" and "CLI").
--
-- Run it as the user that owns schema flows (the one `flows db migrate` ran as), e.g.
--   psql "$FLOWS_DATABASE_URL" -f ops/sql/readonly-role.sql
-- then hand the role to people or dashboards:
--   CREATE ROLE alice LOGIN PASSWORD '...' IN ROLE flows_reader;   -- or: GRANT flows_reader TO alice;
--
-- flows_reader can SELECT every table and view of schema flows (the views for plain SQL; the
-- journal's tables because `flows runs show` and `flows runs watch` read a run through the
-- journal) and the migration history (so every command can check the schema version), and
-- nothing else: no INSERT, UPDATE, DELETE or TRUNCATE, no DDL. The database's functions run with
-- the caller's rights, so a writing one is refused to this role too. Safe to run again (after a
-- migration that adds a table or view, rerun it to grant that one too).

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'flows_reader') THEN
    CREATE ROLE flows_reader NOLOGIN;
  END IF;
END
$$;

GRANT USAGE ON SCHEMA flows TO flows_reader;
-- Tables, views and Flyway's history table alike.
GRANT SELECT ON ALL TABLES IN SCHEMA flows TO flows_reader;
