-- flows runs upgrade moves a run not ended to another version of its flow: its body step's
-- instruction and route change (flows.check_step_identity allows that one change) and run.upgraded
-- journals the move with its actor, a run-scoped entry (no step, no attempt).

ALTER TYPE flows.entry_type ADD VALUE 'run.upgraded';
