package dev.flows.kernel.llm;

import java.util.List;
import java.util.Objects;

/**
 * A model's answer: its text, the tool calls it asks for (in order; empty when none), the tokens
 * used and why it stopped ({@code stop}, {@code length}, {@code tool_calls}, {@code
 * content_filter}, {@code other}).
 */
public record LlmAnswer(
    String text, List<LlmToolCall> toolCalls, LlmUsage usage, String finishReason) {
  public static final String STOP = "stop";
  public static final String CONTENT_FILTER = "content_filter";

  public LlmAnswer {
    Objects.requireNonNull(text, "text");
    toolCalls = List.copyOf(toolCalls);
    Objects.requireNonNull(usage, "usage");
    Objects.requireNonNull(finishReason, "finishReason");
  }

  public LlmAnswer(String text, LlmUsage usage, String finishReason) {
    this(text, List.of(), usage, finishReason);
  }
}
