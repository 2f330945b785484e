package dev.flows.kernel.llm;

import java.util.Objects;

/** One message of a conversation with a model. */
public record LlmMessage(Role role, String text) {
  /** Who speaks. */
  public enum Role {
    SYSTEM,
    USER,
    ASSISTANT
  }

  public LlmMessage {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(text, "text");
  }

  public static LlmMessage system(String text) {
    return new LlmMessage(Role.SYSTEM, text);
  }

  public static LlmMessage user(String text) {
    return new LlmMessage(Role.USER, text);
  }
}
