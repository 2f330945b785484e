package dev.flows.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.EffectElection;
import java.util.Optional;

/**
 * The effect verbs of one attempt, fenced by its lease: an agent executor records an effect before
 * performing it and confirms it after (see the journal's {@code recordEffect}/{@code
 * confirmEffect}).
 */
public interface EffectGate {
  EffectElection record(String surfacePath);

  void confirm(String surfacePath, Optional<JsonNode> output);

  /**
   * True when {@link #confirm} only remembers the output and the journal confirms it together with
   * the completion (an inline call): "confirmed" then happens at the completion, and fault points
   * that mean "confirmed, not completed" are reached there instead.
   */
  default boolean confirmsAtCompletion() {
    return false;
  }
}
