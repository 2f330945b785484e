package dev.flows.kernel.journal;

import dev.flows.kernel.lifecycle.RunStatus;

/**
 * The answer to a cancel. {@code tombstoned}: the run did not exist and now never can. {@code
 * alreadyTerminal}: nothing changed.
 */
public record CancelOutcome(
    RunRef runId, RunStatus status, boolean tombstoned, boolean alreadyTerminal) {}
