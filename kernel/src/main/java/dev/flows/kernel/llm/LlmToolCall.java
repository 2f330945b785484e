package dev.flows.kernel.llm;

import java.util.Objects;

/**
 * A tool call a model asked for: the provider's call id, the tool's name as the model was shown it,
 * and the arguments as the model wrote them (JSON text, not checked here).
 */
public record LlmToolCall(String id, String name, String arguments) {
  public LlmToolCall {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(arguments, "arguments");
  }
}
