package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Checks an answer against the schema of a form elicitation ({@code requestedSchema}): an object of
 * primitive properties ({@code string}, {@code number}, {@code integer}, {@code boolean}), each
 * with the restrictions MCP allows ({@code enum}, {@code minLength}, {@code maxLength}, {@code
 * minimum}, {@code maximum}), and {@code required}. A property the schema does not name is refused
 * too: an operator's typo must not be sent as an answer.
 */
public final class ElicitationSchema {
  private ElicitationSchema() {}

  /**
   * The first way {@code content} breaks {@code schema}, as {@code <pointer>: <why>}; empty if
   * none.
   */
  public static Optional<String> violation(JsonNode schema, JsonNode content) {
    if (!content.isObject()) {
      return Optional.of("/: expected an object, got " + kind(content));
    }
    JsonNode properties = schema.path("properties");
    for (JsonNode r : schema.path("required")) {
      if (!content.has(r.asText())) {
        return Optional.of("/" + r.asText() + ": required");
      }
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = content.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      String at = "/" + f.getKey();
      JsonNode p = properties.path(f.getKey());
      if (!p.isObject()) {
        return Optional.of(at + ": not a field of the requested form");
      }
      Optional<String> bad = property(p, f.getValue());
      if (bad.isPresent()) {
        return Optional.of(at + ": " + bad.get());
      }
    }
    return Optional.empty();
  }

  private static Optional<String> property(JsonNode p, JsonNode v) {
    String type = p.path("type").asText("");
    boolean fits =
        switch (type) {
          case "string" -> v.isTextual();
          case "number" -> v.isNumber();
          case "integer" -> v.isIntegralNumber() || (v.isNumber() && v.asDouble() % 1 == 0);
          case "boolean" -> v.isBoolean();
          default -> true;
        };
    if (!fits) {
      return Optional.of("expected " + type + ", got " + kind(v));
    }
    JsonNode allowed = p.has("enum") ? p.get("enum") : p.path("oneOf");
    if (allowed.isArray() && !allowed.isEmpty()) {
      boolean listed = false;
      for (JsonNode a : allowed) {
        listed |= a.equals(v) || (a.isObject() && a.path("const").equals(v));
      }
      if (!listed) {
        return Optional.of(v + " is not one of " + allowed);
      }
    }
    if (v.isTextual() && p.has("minLength") && v.asText().length() < p.get("minLength").asInt()) {
      return Optional.of("shorter than minLength " + p.get("minLength").asInt());
    }
    if (v.isTextual() && p.has("maxLength") && v.asText().length() > p.get("maxLength").asInt()) {
      return Optional.of("longer than maxLength " + p.get("maxLength").asInt());
    }
    if (v.isNumber() && p.has("minimum") && v.asDouble() < p.get("minimum").asDouble()) {
      return Optional.of("below minimum " + p.get("minimum"));
    }
    if (v.isNumber() && p.has("maximum") && v.asDouble() > p.get("maximum").asDouble()) {
      return Optional.of("above maximum " + p.get("maximum"));
    }
    return Optional.empty();
  }

  private static String kind(JsonNode v) {
    return switch (v.getNodeType()) {
      case STRING -> "string";
      case NUMBER -> "number";
      case BOOLEAN -> "boolean";
      case OBJECT, POJO -> "object";
      case ARRAY -> "array";
      case NULL, MISSING -> "null";
      case BINARY -> "binary";
    };
  }
}
