-- The partial text of running model turns, so readers in other processes (flows runs watch, the
-- console, an embedding service) see a turn's answer grow while the model streams it.
--
-- UNLOGGED: the text is never journaled and is worthless after a crash (the turn is asked again),
-- so its writes skip the WAL, and Postgres empties the table after a crash. A table rather than
-- NOTIFY: a reader that starts watching mid-turn reads the whole text so far, and a reader polls
-- at its own pace. One row per running turn, overwritten with the whole text so far at most every
-- ~100 ms by the worker asking the model, deleted when the turn ends.
CREATE UNLOGGED TABLE flows.live_text (
  run_id     text NOT NULL,
  step_id    text NOT NULL,
  text       text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, step_id)
);
