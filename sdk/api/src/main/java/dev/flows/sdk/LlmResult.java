package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The journaled result of one model call ({@code f.llm(model)...call()}): the answer's text, its
 * value ({@code T}: the text itself, or the record {@link LlmCall#responseFormat} asked for, read
 * from the text), the tokens used, and the receipt {@code {type:"llm", model, provider,
 * providerModel, output, usage:{inputTokens, outputTokens}, finishReason, idempotencyKey}}.
 */
public record LlmResult<T>(String text, T value, TokenUsage usage, JsonNode receipt) {
  public String idempotencyKey() {
    return receipt.path("idempotencyKey").asText();
  }

  public String finishReason() {
    return receipt.path("finishReason").asText();
  }
}
