-- How many of the step's attempts ended suspended (they do not use up iterations).
SELECT suspensions FROM flows.steps WHERE run_id = :runId AND step_id = :stepId
