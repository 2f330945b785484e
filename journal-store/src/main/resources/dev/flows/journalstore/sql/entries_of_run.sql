-- A run's entries in order, each whole: an output kept in its effect election (the
-- journal_output_once trigger left it out of effect.confirmed, or put outputOf in step.completed
-- or step.resolved) is put back from there.
SELECT j.seq, j.at, j.entry_type,
       CASE WHEN j.entry_type = 'effect.confirmed' AND j.payload -> 'output' IS NULL
                 AND e.output IS NOT NULL
              THEN j.payload || jsonb_build_object('output', e.output)
            WHEN j.entry_type IN ('step.completed', 'step.resolved')
                 AND j.payload -> 'outputOf' IS NOT NULL
              THEN (j.payload - 'outputOf') || jsonb_build_object('output', e.output)
            ELSE j.payload END AS payload
  FROM flows.journal_entries j
  LEFT JOIN flows.effect_elections e
    ON j.entry_type IN ('effect.confirmed', 'step.completed', 'step.resolved')
   AND e.run_id = j.run_id AND e.step_id = j.step_id AND e.confirmed
   AND e.surface_path = coalesce(j.payload ->> 'outputOf', j.payload ->> 'surfacePath')
 WHERE j.run_id = :runId
 ORDER BY j.seq
