-- Ticking.due, as schedules_due, holding the rows for a batch take: a row another taker holds is
-- skipped, not waited for (it takes that schedule), so two workers split the due schedules.
SELECT s.definition, s.paused, s.next_tick_at, s.pending, s.last_run_id, s.created_at,
       s.updated_at
  FROM flows.schedules s
  LEFT JOIN flows.runs r ON r.run_id = s.last_run_id
 WHERE NOT s.paused
   AND s.flow = ANY (:flows)
   AND (s.due_at <= CAST(:now AS timestamptz)
        OR (s.pending <> '[]'::jsonb
            AND (r.run_id IS NULL OR r.status IN ('succeeded', 'failed', 'canceled'))))
 ORDER BY s.due_at NULLS LAST, s.name
 LIMIT :limit
   FOR UPDATE OF s SKIP LOCKED
