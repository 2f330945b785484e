-- A step parked input_required is answered with step.answered (the inputResponses its call is
-- re-issued with): a step-scoped entry of no one attempt, like step.resolved.

ALTER TYPE flows.entry_type ADD VALUE 'step.answered';

-- The new enum value cannot be used in this transaction, so the scope is checked on its text.
ALTER TABLE flows.journal_entries DROP CONSTRAINT journal_step_scope;
ALTER TABLE flows.journal_entries ADD CONSTRAINT journal_step_scope CHECK (
  (entry_type::text IN ('step.attempt.started', 'step.completed', 'effect.recorded',
                        'effect.confirmed', 'step.resolved', 'step.answered'))
    = (step_id IS NOT NULL));
