package dev.flows.kernel.instruction;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.util.Optional;

/** Reading an instruction's fields, refusing a missing or mistyped one by its path. */
final class Fields {
  static final String TYPE = "type";

  private Fields() {}

  /** The tree is an object of type {@code type}. */
  static void expectType(JsonNode json, String type) {
    if (!json.isObject()) {
      throw refused("instruction", "an instruction is a JSON object, not " + json.getNodeType());
    }
    String actual = text(json, TYPE, "instruction");
    if (!actual.equals(type)) {
      throw refused(
          "instruction.type",
          "an instruction of type '" + actual + "' is not a '" + type + "' instruction");
    }
  }

  static String text(JsonNode json, String field, String at) {
    JsonNode v = json.get(field);
    if (v == null || !v.isTextual()) {
      throw missing(field, at, "a string");
    }
    return v.asText();
  }

  static Optional<String> optionalText(JsonNode json, String field, String at) {
    JsonNode v = json.get(field);
    if (v == null) {
      return Optional.empty();
    }
    if (!v.isTextual()) {
      throw missing(field, at, "a string");
    }
    return Optional.of(v.asText());
  }

  static JsonNode object(JsonNode json, String field, String at) {
    JsonNode v = json.get(field);
    if (v == null || !v.isObject()) {
      throw missing(field, at, "an object");
    }
    return v;
  }

  static JsonNode present(JsonNode json, String field, String at) {
    JsonNode v = json.get(field);
    if (v == null) {
      throw missing(field, at, "a JSON value");
    }
    return v;
  }

  static boolean optionalBoolean(JsonNode json, String field, String at, boolean absent) {
    JsonNode v = json.get(field);
    if (v == null) {
      return absent;
    }
    if (!v.isBoolean()) {
      throw missing(field, at, "a boolean");
    }
    return v.asBoolean();
  }

  /** An optional array of strings: empty when absent. */
  static Optional<java.util.List<String>> optionalTexts(JsonNode json, String field, String at) {
    JsonNode v = json.get(field);
    if (v == null) {
      return Optional.empty();
    }
    java.util.List<String> out = new java.util.ArrayList<>();
    if (v.isArray()) {
      v.forEach(e -> out.add(e.isTextual() ? e.asText() : null));
    }
    if (!v.isArray() || out.contains(null)) {
      throw missing(field, at, "an array of strings");
    }
    return Optional.of(java.util.List.copyOf(out));
  }

  /** A refusal of a field whose value is not one of those allowed. */
  static FlowsException notOneOf(String field, String at, java.util.List<String> allowed) {
    return missing(field, at, "one of " + allowed);
  }

  static FlowsException unknownKind(String kind, String place) {
    return refused(place, "an origin of kind '" + kind + "' is neither 'class' nor 'source'");
  }

  private static FlowsException missing(String field, String at, String what) {
    return refused(at + "." + field, "the instruction's '" + field + "' is not " + what);
  }

  private static FlowsException refused(String place, String message) {
    return new FlowsException(
        ErrorCode.INVALID_INPUT,
        message,
        place,
        "admit the run through flows (f.mcp, a flow class or file), which writes the instruction");
  }
}
