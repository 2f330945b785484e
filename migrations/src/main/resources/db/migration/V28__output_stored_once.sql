-- A step whose output is the output of one of its attempt's confirmed effect elections (an MCP
-- call's receipt) keeps it there only: output_of names that election's surface path and output
-- stays NULL; readers take flows.step_output. Set by the steps_output_once trigger.
ALTER TABLE flows.steps ADD COLUMN output_of text;
