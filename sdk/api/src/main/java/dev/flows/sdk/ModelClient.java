package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A chat model a service gives in code ({@code Flows.builder().model("fast", client)}), for {@code
 * f.llm("fast")} and {@code llm} steps, beside the models flows.json declares. A client wrapping
 * any library's model (a LangChain4j {@code ChatModel}, say) answers one request with one {@link
 * Answer}. A thrown exception fails the call {@code llm_error} with its message; an answer whose
 * finish reason is {@code content_filter} fails it {@code llm_refused}.
 */
@FunctionalInterface
public interface ModelClient {
  /**
   * Answers {@code messages}; {@code responseSchema}, when present, is the JSON schema the answer's
   * text must fit (structured output).
   */
  Answer chat(List<Message> messages, Optional<JsonNode> responseSchema) throws Exception;

  /** What receipts name as the provider. */
  default String provider() {
    return "code";
  }

  /** What receipts name as the provider's model. */
  default String model() {
    return "code";
  }

  /** Who speaks a message. */
  enum Role {
    SYSTEM,
    USER,
    ASSISTANT
  }

  /** One message of the conversation. */
  record Message(Role role, String text) {
    public Message {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(text, "text");
    }
  }

  /** The model's answer: its text, the tokens used, and why it stopped ({@code stop}, ...). */
  record Answer(String text, TokenUsage usage, String finishReason) {
    public Answer {
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(usage, "usage");
      Objects.requireNonNull(finishReason, "finishReason");
    }

    /** A plain answer that stopped by itself. */
    public static Answer of(String text, long inputTokens, long outputTokens) {
      return new Answer(text, new TokenUsage(inputTokens, outputTokens), "stop");
    }
  }
}
