package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * The answer to an effect record. {@code deduped} is true only when a confirmed election already
 * exists: the effect was performed and must not be performed again ({@code confirmedOutput} holds
 * its journaled result, if one was confirmed with it). {@code takenOver} is true when this attempt
 * took over an unconfirmed election from a dead attempt: the outcome of that earlier try is
 * unknown.
 */
public record EffectElection(
    String idempotencyKey,
    boolean deduped,
    boolean takenOver,
    Optional<JsonNode> confirmedOutput) {}
