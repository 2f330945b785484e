package dev.flows.testing;

import dev.flows.sdk.RunId;

/**
 * A step parked for an operator (e.g. {@code effect_outcome_unknown}: an MCP call whose outcome was
 * lost and that may not be sent again), in the run or a run under it.
 */
public record ParkedStep(RunId run, String stepId, String reason) {}
