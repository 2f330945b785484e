-- The success path of recordConfirmedEffect(s) for a batch of calls (the memos of one or more
-- leases, several of one lease in their order, and no two for one election: the caller sends only
-- the first of those), as one statement and so one transaction in autocommit: for every call
-- whose lease is live by the journal's clock (:now when a test clock gives one, else the
-- database's), whose run is not terminal and whose (run, step, surface) holds no election yet
-- (nor any other memo of its lease in the batch), insert the election
-- already confirmed and journal effect.recorded then effect.confirmed (payloads encoded by the
-- caller with EntryCodec). Answers the ords (from 1) of the calls that took this path; any other
-- call writes nothing here and goes back to the one-call path, which gives the exact answer or
-- refusal. Step rows are locked in (run_id, step_id) order, so two batches never deadlock, and no
-- run row is locked (the entries' foreign-key KEY SHARE does not conflict with the NO KEY UPDATE
-- run locks of other verbs).
-- A lease whose memos include one that holds an election already (checked here by the statement's
-- snapshot) is left out whole, so the one-call path writes its memos in their order; ON CONFLICT
-- (which also sees elections committed after the snapshot) stays the guard against a double
-- election. Postgres sets up every plan node per execution, so the input is read once.
WITH clock AS MATERIALIZED (
  SELECT coalesce(CAST(:now AS timestamptz), clock_timestamp()) AS now
),
input AS MATERIALIZED (
  SELECT *
    FROM unnest(CAST(:runIds AS text[]), CAST(:stepIds AS text[]),
                CAST(:attempts AS integer[]), CAST(:leaseIds AS text[]),
                CAST(:surfacePaths AS text[]), CAST(:idempotencyKeys AS text[]),
                CAST(:outputs AS text[]), CAST(:recordedPayloads AS text[]),
                CAST(:confirmedPayloads AS text[]))
         WITH ORDINALITY
      AS i(run_id, step_id, attempt, lease_id, surface_path, idempotency_key, output, recorded,
           confirmed, ord)
),
held AS MATERIALIZED (
  SELECT DISTINCT i.run_id, i.step_id, i.lease_id
    FROM input i
    JOIN flows.effect_elections e
      ON e.run_id = i.run_id AND e.step_id = i.step_id AND e.surface_path = i.surface_path
),
fenced AS (
  SELECT i.ord, i.run_id, i.step_id, i.attempt, i.surface_path, i.idempotency_key, i.output,
         i.recorded, i.confirmed, c.now
    FROM input i
    JOIN flows.steps s ON s.run_id = i.run_id AND s.step_id = i.step_id
    JOIN flows.runs r ON r.run_id = s.run_id
   CROSS JOIN clock c
   WHERE s.status = 'running'
     AND s.attempts = i.attempt
     AND s.lease_id = i.lease_id
     AND c.now < s.lease_deadline
     AND r.status NOT IN ('succeeded', 'failed', 'canceled')
     AND NOT EXISTS (SELECT 1 FROM held h
                      WHERE h.run_id = i.run_id AND h.step_id = i.step_id
                        AND h.lease_id = i.lease_id)
   ORDER BY s.run_id, s.step_id
     FOR NO KEY UPDATE OF s
),
elected AS (
  -- An existing election, even one committed after this statement's snapshot, is a conflict:
  -- that call goes slow.
  INSERT INTO flows.effect_elections (run_id, step_id, surface_path, attempt, idempotency_key,
                                      confirmed, output, recorded_at, confirmed_at)
  SELECT run_id, step_id, surface_path, attempt, idempotency_key, true, CAST(output AS jsonb),
         now, now
    FROM fenced
   ORDER BY run_id, step_id, ord
      ON CONFLICT DO NOTHING
  RETURNING run_id, step_id, surface_path
),
fast AS (
  SELECT f.*
    FROM fenced f
    JOIN elected e
      ON e.run_id = f.run_id AND e.step_id = f.step_id AND e.surface_path = f.surface_path
),
journaled AS (
  INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)
  SELECT f.now, f.run_id, x.entry_type, f.step_id, f.attempt, x.payload
    FROM fast f
   CROSS JOIN LATERAL (VALUES (1, CAST('effect.recorded' AS flows.entry_type),
                               CAST(f.recorded AS jsonb)),
                              (2, CAST('effect.confirmed' AS flows.entry_type),
                               CAST(f.confirmed AS jsonb))) AS x(n, entry_type, payload)
   ORDER BY f.ord, x.n
  RETURNING 1
)
SELECT ord FROM fast
