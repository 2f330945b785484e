package dev.flows.kernel.instruction;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.json.StrictJson;
import dev.flows.kernel.json.StrictJson.Expected;
import dev.flows.kernel.json.StrictJson.Place;
import dev.flows.kernel.json.StrictJson.Problem;
import java.util.List;
import java.util.Optional;

/**
 * Reading an instruction's fields through the kernel's strict reader, refusing a missing or
 * mistyped one by its dotted path (e.g. {@code instruction.type}).
 */
final class Fields {
  static final String TYPE = "type";
  private static final StrictJson JSON = new StrictJson(Fields::refused);

  private Fields() {}

  /** The tree is an object of type {@code type}. */
  static void expectType(JsonNode json, String type) {
    JSON.object(json, Place.at("instruction"));
    String actual = text(json, TYPE, "instruction");
    if (!actual.equals(type)) {
      throw refused(
          "instruction.type",
          "an instruction of type '" + actual + "' is not a '" + type + "' instruction");
    }
  }

  static String text(JsonNode json, String field, String at) {
    return JSON.string(json, at, field);
  }

  static Optional<String> optionalText(JsonNode json, String field, String at) {
    return JSON.optionalString(json, at, field);
  }

  static JsonNode object(JsonNode json, String field, String at) {
    return JSON.object(json, at, field);
  }

  static JsonNode present(JsonNode json, String field, String at) {
    return JSON.required(json, at, field, Expected.VALUE);
  }

  static boolean optionalBoolean(JsonNode json, String field, String at, boolean absent) {
    return JSON.optionalBoolean(json, at, field).orElse(absent);
  }

  /** An optional array of strings: empty when absent. */
  static Optional<List<String>> optionalTexts(JsonNode json, String field, String at) {
    return JSON.optionalStrings(json, at, field);
  }

  /** A refusal of a field whose value is not one of those allowed. */
  static FlowsException notOneOf(String field, String at, List<String> allowed) {
    return missing(field, at, "one of " + allowed);
  }

  static FlowsException unknownKind(String kind, String place) {
    return refused(place, "an origin of kind '" + kind + "' is neither 'class' nor 'source'");
  }

  private static FlowsException refused(Place place, Problem problem) {
    String at = place.parent();
    if (place.key().isEmpty()) {
      return refused(
          at,
          "an instruction is a JSON object, not "
              + (problem instanceof Problem.WrongType t ? t.value().getNodeType() : problem));
    }
    String field = place.key().get();
    return switch (problem) {
      case Problem.Missing m -> missing(field, at, m.expected().described());
      case Problem.WrongType t -> missing(field, at, t.expected().described());
      case Problem.WrongElement e -> missing(field, at, e.container().described());
      case Problem.UnknownField u ->
          refused(at + "." + u.field(), "the instruction has an unknown field '" + u.field() + "'");
    };
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
