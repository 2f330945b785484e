-- An operator says the open elections were not performed: the next attempt elects afresh.
DELETE FROM flows.effect_elections
 WHERE run_id = :runId
   AND step_id = :stepId
   AND NOT confirmed
