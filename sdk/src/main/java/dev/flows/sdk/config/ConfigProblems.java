package dev.flows.sdk.config;

import dev.flows.kernel.FlowsException;
import dev.flows.kernel.json.StrictJson;
import dev.flows.kernel.json.StrictJson.Place;
import dev.flows.kernel.json.StrictJson.Problem;
import dev.flows.kernel.mcp.McpAuthJson;
import java.util.TreeSet;

/**
 * What a flows.json refusal says for each problem the strict reader finds: the problem and its fix,
 * at the place's pointer (the file and the code come from {@code w}'s own refusal).
 */
final class ConfigProblems {
  private ConfigProblems() {}

  static FlowsException refusal(McpAuthJson.UserForm w, Place place, Problem problem) {
    String key = place.key().orElse("");
    return switch (problem) {
      case Problem.UnknownField u ->
          w.refuse(
              place.pointer(),
              "has unknown key \"" + u.field() + "\"",
              "remove it; allowed here: " + String.join(", ", new TreeSet<>(u.allowed())));
      case Problem.Missing m ->
          w.refuse(place.pointer(), "is missing \"" + key + "\"", "add \"" + key + "\"");
      case Problem.WrongElement e ->
          w.refuse(
              StrictJson.pointer(place.pointer(), e.element()),
              "must be a string",
              "write \"...\"");
      case Problem.WrongType t ->
          switch (t.expected()) {
            case OBJECT -> w.refuse(place.pointer(), "must be a JSON object", "write {...} here");
            case STRING ->
                w.refuse(place.pointer(), "must be a string", "write \"" + key + "\": \"...\"");
            case BOOLEAN ->
                w.refuse(place.pointer(), "must be true or false", "write true or false");
            case STRING_ARRAY ->
                w.refuse(place.pointer(), "must be an array of strings", "write [\"...\"]");
            case STRING_MAP ->
                w.refuse(
                    place.pointer(), "must be an object of strings", "write {\"Name\": \"value\"}");
            case VALUE -> w.refuse(place.pointer(), "must be a JSON value", "write a JSON value");
          };
    };
  }
}
