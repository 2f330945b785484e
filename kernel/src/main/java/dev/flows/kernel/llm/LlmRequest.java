package dev.flows.kernel.llm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/**
 * What one model call sends: the conversation, the tools the model may call, and, for structured
 * output, the JSON schema the answer must fit ({@code schemaName} names it for providers that want
 * a name).
 */
public record LlmRequest(
    List<LlmMessage> messages, List<LlmToolSpec> tools, Optional<ResponseSchema> schema) {
  public LlmRequest {
    messages = List.copyOf(messages);
    tools = List.copyOf(tools);
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("a model call needs at least one message");
    }
  }

  public LlmRequest(List<LlmMessage> messages, Optional<ResponseSchema> schema) {
    this(messages, List.of(), schema);
  }

  /** A one-message request: {@code prompt} as the user. */
  public static LlmRequest prompt(String prompt) {
    return new LlmRequest(List.of(LlmMessage.user(prompt)), Optional.empty());
  }

  /** The JSON schema an answer must fit. */
  public record ResponseSchema(String name, JsonNode schema) {}
}
