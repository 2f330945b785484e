package dev.flows.examples.servers;

import java.util.Map;

/**
 * A tool needs a person's input before it acts: on 2026-07-28 the call is answered {@code
 * input_required} with a form elicitation {@code key} ({@code message}, {@code requestedSchema})
 * and {@code requestState}, and the client re-issues it with the answer; a 2025 session cannot
 * carry that, so there the call is refused ({@code isError}).
 */
public final class InputNeeded extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final transient Map<String, Object> requestedSchema;
  private final String requestState;

  public InputNeeded(
      String key, String message, Map<String, Object> requestedSchema, String requestState) {
    super(message, null, false, false);
    this.key = key;
    this.requestedSchema = Map.copyOf(requestedSchema);
    this.requestState = requestState;
  }

  public String key() {
    return key;
  }

  public Map<String, Object> requestedSchema() {
    return requestedSchema;
  }

  public String requestState() {
    return requestState;
  }
}
