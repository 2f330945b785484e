package dev.flows.worker;

import dev.flows.kernel.journal.ClaimedAttempt;

/**
 * What an executor gets for one attempt: the claimed step, the token that tells it to stop, and the
 * lease-fenced effect verbs for agent work.
 */
public record StepExecution(ClaimedAttempt attempt, CancellationToken token, EffectGate effects) {}
