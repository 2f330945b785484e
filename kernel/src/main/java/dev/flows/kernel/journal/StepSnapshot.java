package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.StepKind;
import java.time.Instant;
import java.util.Optional;

/** One step as the journal sees it now. */
public record StepSnapshot(
    String stepId,
    StepKind kind,
    StepStatus status,
    int attempts,
    Instant notBefore,
    Optional<CompletionReason> lastReason,
    Optional<JsonNode> output) {}
