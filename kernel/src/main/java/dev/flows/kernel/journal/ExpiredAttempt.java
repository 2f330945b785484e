package dev.flows.kernel.journal;

/** An attempt the reconciler found past its deadline, and what became of its step. */
public record ExpiredAttempt(LeaseToken lease, Disposition disposition) {}
