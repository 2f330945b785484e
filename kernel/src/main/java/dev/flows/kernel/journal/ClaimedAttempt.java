package dev.flows.kernel.journal;

import dev.flows.kernel.spec.StepSpec;
import java.time.Instant;
import java.util.Optional;

/** An attempt opened by a claim: what to run, and the lease that fences it. */
public record ClaimedAttempt(
    LeaseToken lease,
    Instant leaseDeadline,
    long leaseMs,
    StepSpec step,
    String idempotencyKey,
    Optional<RunRef> parentRunId) {}
