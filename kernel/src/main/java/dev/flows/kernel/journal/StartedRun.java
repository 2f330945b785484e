package dev.flows.kernel.journal;

import dev.flows.kernel.lifecycle.RunStatus;

/** The answer to a start: the run, and whether this call created it. */
public record StartedRun(RunRef runId, boolean created, RunStatus status) {}
