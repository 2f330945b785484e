package dev.flows.kernel.llm;

import java.util.List;
import java.util.Objects;

/**
 * One message of a conversation with a model. An assistant's message may carry the tool calls it
 * asked for; a {@code TOOL} message answers one of them ({@code toolCallId}, {@code toolName}).
 * Fields a role does not use are empty.
 */
public record LlmMessage(
    Role role, String text, List<LlmToolCall> toolCalls, String toolCallId, String toolName) {
  /** Who speaks. */
  public enum Role {
    SYSTEM,
    USER,
    ASSISTANT,
    TOOL
  }

  public LlmMessage {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(text, "text");
    toolCalls = List.copyOf(toolCalls);
    Objects.requireNonNull(toolCallId, "toolCallId");
    Objects.requireNonNull(toolName, "toolName");
  }

  public LlmMessage(Role role, String text) {
    this(role, text, List.of(), "", "");
  }

  public static LlmMessage system(String text) {
    return new LlmMessage(Role.SYSTEM, text);
  }

  public static LlmMessage user(String text) {
    return new LlmMessage(Role.USER, text);
  }

  /** The model's own message, with the tool calls it asked for. */
  public static LlmMessage assistant(String text, List<LlmToolCall> toolCalls) {
    return new LlmMessage(Role.ASSISTANT, text, toolCalls, "", "");
  }

  /** The result of the tool call {@code call}, as the model reads it. */
  public static LlmMessage toolResult(LlmToolCall call, String text) {
    return new LlmMessage(Role.TOOL, text, List.of(), call.id(), call.name());
  }
}
