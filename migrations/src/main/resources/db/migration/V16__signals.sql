-- Signals: a mailbox per run and name. A signal is kept from its send until a body's
-- f.awaitSignal takes it (flows.send_signal sends, the journal's takeSignal delivers), in the
-- order sent, each once. Delivery is journaled as the taking attempt's confirmed effect at the
-- body's position; delivered_* say where.

CREATE TABLE flows.signal_mailbox (
  run_id            text NOT NULL REFERENCES flows.runs (run_id),
  name              text NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$'),
  -- The n-th signal of this name sent to this run, from 1: the order of delivery.
  seq               bigint NOT NULL CHECK (seq >= 1),
  payload           jsonb NOT NULL,
  -- A sender's key: a second send with it to the same run sends nothing.
  dedup_key         text CHECK (length(dedup_key) BETWEEN 1 AND 200),
  sent_at           timestamptz NOT NULL,
  delivered_at      timestamptz,
  delivered_step_id text,
  delivered_attempt integer,
  delivered_surface text,
  PRIMARY KEY (run_id, name, seq),
  UNIQUE (run_id, dedup_key),
  CONSTRAINT signal_delivered_whole CHECK (
    (delivered_at IS NULL) = (delivered_step_id IS NULL)
    AND (delivered_at IS NULL) = (delivered_attempt IS NULL)
    AND (delivered_at IS NULL) = (delivered_surface IS NULL))
);

-- What a waiting body takes next, and what a suspending one looks for.
CREATE INDEX signal_mailbox_pending ON flows.signal_mailbox (run_id, name, seq)
  WHERE delivered_at IS NULL;

-- For plain SQL: every signal, sent, delivered or pending.
CREATE VIEW flows.signals AS
SELECT m.run_id,
       m.name,
       m.seq,
       m.payload,
       m.dedup_key,
       m.sent_at,
       m.delivered_at,
       m.delivered_step_id,
       m.delivered_attempt,
       m.delivered_surface,
       CASE WHEN m.delivered_at IS NULL THEN 'pending' ELSE 'delivered' END AS state
  FROM flows.signal_mailbox m;
