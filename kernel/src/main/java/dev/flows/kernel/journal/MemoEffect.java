package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * One effect already performed in-process (a body's memo), to record and confirm at once: its
 * surface path and its result if it has one ({@link Journal#recordConfirmedEffects}).
 */
public record MemoEffect(String surfacePath, Optional<JsonNode> output) {}
