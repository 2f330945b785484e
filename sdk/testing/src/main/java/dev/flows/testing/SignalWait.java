package dev.flows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * One decided {@code f.awaitSignal} of a run: the signal's name and its payload, or empty when the
 * wait timed out.
 */
public record SignalWait(String signal, Optional<JsonNode> payload) {
  public boolean timedOut() {
    return payload.isEmpty();
  }
}
