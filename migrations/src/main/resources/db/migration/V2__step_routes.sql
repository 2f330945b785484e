-- A step's route (dev.flows.kernel.spec.Routes): what a worker must be able to run to claim it.
-- Claims filter on it so that a worker never takes a step it cannot run, e.g. a flow class it
-- lacks or a flow at another version.
ALTER TABLE flows.steps ADD COLUMN route text NOT NULL DEFAULT '';
ALTER TABLE flows.steps ALTER COLUMN route DROP DEFAULT;
