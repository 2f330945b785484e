package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Answers to {@link InputRequest elicitations}, as the {@code ElicitResult} JSON servers expect.
 */
public final class InputResponses {
  private InputResponses() {}

  /** Accepts a form with {@code content} (an object satisfying the requested schema). */
  public static JsonNode accept(JsonNode content) {
    ObjectNode n = JsonNodeFactory.instance.objectNode().put("action", "accept");
    n.set("content", content);
    return n;
  }

  /** Accepts a URL elicitation (the person visited it; there is no content). */
  public static JsonNode accepted() {
    return JsonNodeFactory.instance.objectNode().put("action", "accept");
  }

  public static JsonNode decline() {
    return JsonNodeFactory.instance.objectNode().put("action", "decline");
  }

  public static JsonNode cancel() {
    return JsonNodeFactory.instance.objectNode().put("action", "cancel");
  }
}
