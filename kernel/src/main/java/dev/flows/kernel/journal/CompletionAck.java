package dev.flows.kernel.journal;

import dev.flows.kernel.lifecycle.RunStatus;
import java.time.Instant;
import java.util.Optional;

/** What the journal made of a completion. */
public record CompletionAck(
    CompletionReason reason,
    Disposition disposition,
    Optional<Instant> nextAttemptAt,
    RunStatus runStatus) {}
