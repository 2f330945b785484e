package dev.flows.kernel.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The one owner of an {@code llm} receipt's JSON: {@code {"type":"llm", "model", "provider",
 * "providerModel", "output", "usage":{"inputTokens","outputTokens"}, "finishReason",
 * "idempotencyKey"}}, and {@code "toolCalls":[{"id","name","arguments"}]} when the model asked for
 * tools. {@code model} is the declared name, {@code providerModel} the provider's id.
 */
public final class LlmReceipt {
  public static final String TYPE = "llm";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private LlmReceipt() {}

  public static ObjectNode of(String model, ModelPort port, LlmAnswer answer, String key) {
    ObjectNode r = JSON.objectNode().put("type", TYPE).put("model", model);
    r.put("provider", port.provider()).put("providerModel", port.model());
    r.put("output", answer.text());
    if (!answer.toolCalls().isEmpty()) {
      ArrayNode calls = r.putArray("toolCalls");
      for (LlmToolCall c : answer.toolCalls()) {
        calls.addObject().put("id", c.id()).put("name", c.name()).put("arguments", c.arguments());
      }
    }
    r.set("usage", usage(answer.usage()));
    r.put("finishReason", answer.finishReason()).put("idempotencyKey", key);
    return r;
  }

  public static ObjectNode usage(LlmUsage u) {
    return JSON.objectNode()
        .put("inputTokens", u.inputTokens())
        .put("outputTokens", u.outputTokens());
  }

  /** The answer a receipt holds (a replay reads it back instead of asking the model). */
  public static LlmAnswer answer(JsonNode receipt) {
    JsonNode u = receipt.path("usage");
    List<LlmToolCall> calls = new ArrayList<>();
    for (JsonNode c : receipt.path("toolCalls")) {
      calls.add(
          new LlmToolCall(
              c.path("id").asText(), c.path("name").asText(), c.path("arguments").asText()));
    }
    return new LlmAnswer(
        receipt.path("output").asText(),
        calls,
        new LlmUsage(u.path("inputTokens").asLong(), u.path("outputTokens").asLong()),
        receipt.path("finishReason").asText());
  }
}
