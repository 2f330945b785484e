package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;
import java.util.Optional;

/**
 * The verbs a flow body's memos name in their {@code "verb"} field (a memo without one is an {@code
 * f.step}'s): the SDK writes them, and replay, {@code runs show} and the console read them back, so
 * each is spelled here only.
 */
public enum MemoVerb {
  STEP("f.step"),
  SLEEP("f.sleep"),
  AWAIT_SIGNAL("f.awaitSignal"),
  FLOW("f.flow"),
  ANY("f.any"),
  ON_INPUT("onInput"),
  NOW("f.now"),
  RANDOM_UUID("f.randomUUID"),
  RANDOM("f.random"),
  LLM("f.llm"),
  PATCHED("f.patched");

  /** The memo field naming the verb. */
  public static final String FIELD = "verb";

  private final String wire;

  MemoVerb(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  /**
   * The verb of {@code memo}: {@link #STEP} when it names none; empty when it names an unknown one.
   */
  public static Optional<MemoVerb> of(JsonNode memo) {
    if (!memo.has(FIELD)) {
      return Optional.of(STEP);
    }
    String w = memo.path(FIELD).asText();
    return Arrays.stream(values()).filter(v -> v.wire.equals(w)).findFirst();
  }
}
