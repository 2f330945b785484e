package dev.flows.kernel.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.InvalidSpecException;
import dev.flows.kernel.json.StrictJson;
import dev.flows.kernel.json.StrictJson.Expected;
import dev.flows.kernel.json.StrictJson.Place;
import dev.flows.kernel.json.StrictJson.Problem;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The JSON checks {@link RunSpecParser} makes of every field: each refuses with an {@link
 * InvalidSpecException} whose pointer names the place, and a message that quotes the value cut
 * short so a one-line refusal stays one line.
 */
final class SpecChecks {
  private static final int MAX_SHOWN_LENGTH = 120;

  private SpecChecks() {}

  static ObjectNode object(JsonNode v, String p, String what) {
    return reader(what, what).object(v, Place.at(p));
  }

  static void onlyFields(ObjectNode o, String p, List<String> allowed) {
    reader("", "").onlyFields(o, p, allowed);
  }

  /**
   * The strict reader refusing as a run spec does; {@code what} names the value read, {@code
   * element} one of its elements.
   */
  private static StrictJson reader(String what, String element) {
    return new StrictJson(
        (place, problem) ->
            switch (problem) {
              case Problem.UnknownField u -> unknownField(place.pointer(), u);
              case Problem.Missing m ->
                  new InvalidSpecException(
                      "missing required field \"" + place.key().orElse("") + "\"",
                      place.pointer(),
                      "add \"" + place.key().orElse("") + "\" here");
              case Problem.WrongType t ->
                  wrongType(t.value(), place.pointer(), what, t.expected().described());
              case Problem.WrongElement e ->
                  wrongType(
                      e.value(),
                      StrictJson.pointer(place.pointer(), e.element()),
                      element,
                      Expected.STRING.described());
            });
  }

  private static InvalidSpecException unknownField(String pointer, Problem.UnknownField u) {
    String f = u.field();
    String hint =
        u.allowed().stream()
            .filter(a -> loose(a).equals(loose(f)))
            .findFirst()
            .map(a -> "did you mean \"" + a + "\"? ")
            .orElse("remove it; ");
    return new InvalidSpecException(
        "unknown field " + shown(f),
        pointer,
        hint + "the fields allowed here are " + String.join(", ", u.allowed()));
  }

  /** Spelling-insensitive form, so {@code depends_on} can be pointed to {@code dependsOn}. */
  static String loose(String name) {
    return name.replace("_", "").replace("-", "").toLowerCase(Locale.ROOT);
  }

  static List<String> fieldNames(ObjectNode o) {
    return o.properties().stream().map(Map.Entry::getKey).toList();
  }

  static JsonNode required(ObjectNode o, String p, String field) {
    return reader("", "").required(o, p, field, Expected.VALUE);
  }

  static <T> Optional<T> optional(ObjectNode o, String field, Function<JsonNode, T> read) {
    JsonNode v = o.get(field);
    return v == null ? Optional.empty() : Optional.of(read.apply(v));
  }

  static String string(JsonNode v, String p, String what) {
    return reader(what, what).string(v, Place.at(p));
  }

  static void nonBlank(String s, String p, String what, String fix) {
    if (s.isBlank()) {
      throw new InvalidSpecException(what + " is blank", p, fix);
    }
  }

  static List<String> distinctStrings(JsonNode v, String p, String what, String element) {
    List<String> all = reader(what, element).strings(v, Place.at(p));
    List<String> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int j = 0; j < all.size(); j++) {
      String s = all.get(j);
      if (!seen.add(s)) {
        throw new InvalidSpecException(
            shown(s) + " is listed twice in " + what, at(p, j), "list it once");
      }
      out.add(s);
    }
    return out;
  }

  static long longAtLeast(JsonNode v, String p, String what, long min) {
    if (!v.isNumber()) {
      throw wrongType(v, p, what, "an integer");
    }
    if (!v.isIntegralNumber()) {
      throw new InvalidSpecException(
          what + " must be a whole number, got " + v,
          p,
          "write an integer, without a fraction or an exponent");
    }
    if (!v.canConvertToLong()) {
      throw new InvalidSpecException(what + " " + v + " is too large", p, "use a smaller value");
    }
    long n = v.longValue();
    if (n < min) {
      throw new InvalidSpecException(
          what + " is " + n + (min == 0 ? ", which is negative" : ", below " + min),
          p,
          "use a value of at least " + min);
    }
    return n;
  }

  static int intWithin(JsonNode v, String p, String what, int min, int max) {
    long n = longAtLeast(v, p, what, min);
    if (n > max) {
      throw new InvalidSpecException(
          what + " is " + n + ", above " + max, p, "use a value from " + min + " to " + max);
    }
    return (int) n;
  }

  /**
   * Free-form JSON ({@code input}, an agent's instruction) is kept as written, but it must be plain
   * JSON that survives the canonical writer: no non-finite numbers (a number too large for a double
   * reads as infinity) and no non-JSON nodes from a hand-built tree.
   */
  static JsonNode freeJson(JsonNode root, String rootPointer) {
    Deque<Map.Entry<String, JsonNode>> todo = new ArrayDeque<>();
    todo.push(Map.entry(rootPointer, root));
    while (!todo.isEmpty()) {
      Map.Entry<String, JsonNode> e = todo.pop();
      String p = e.getKey();
      JsonNode v = e.getValue();
      switch (v.getNodeType()) {
        case OBJECT ->
            v.properties().forEach(f -> todo.push(Map.entry(at(p, f.getKey()), f.getValue())));
        case ARRAY -> {
          for (int j = 0; j < v.size(); j++) {
            todo.push(Map.entry(at(p, j), v.get(j)));
          }
        }
        case NUMBER -> {
          if (v.isFloatingPointNumber() && !Double.isFinite(v.doubleValue())) {
            throw new InvalidSpecException(
                "number " + v.asText() + " is out of range", p, "use a finite number");
          }
        }
        case STRING, BOOLEAN, NULL -> {}
        case BINARY, POJO, MISSING ->
            throw new InvalidSpecException(
                "not a JSON value (" + v.getNodeType() + ")", p, "use plain JSON values only");
      }
    }
    return root;
  }

  static InvalidSpecException wrongType(JsonNode v, String p, String what, String expected) {
    return new InvalidSpecException(
        what + " must be " + expected + ", got " + describe(v), p, "write " + expected + " here");
  }

  static String describe(JsonNode v) {
    return switch (v.getNodeType()) {
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      case BINARY, POJO, MISSING -> "a non-JSON value";
    };
  }

  static String wires(RecoveryMode[] modes) {
    return Arrays.stream(modes).map(m -> "\"" + m.wire() + "\"").collect(Collectors.joining(", "));
  }

  /** Quotes a value from the spec for a message, cut short so a one-line refusal stays one line. */
  static String shown(String value) {
    return "\""
        + (value.length() > MAX_SHOWN_LENGTH ? value.substring(0, MAX_SHOWN_LENGTH) + "..." : value)
        + "\"";
  }

  /** RFC 6901: "~" and "/" inside a reference token are escaped as "~0" and "~1". */
  static String at(String pointer, String field) {
    return StrictJson.pointer(pointer, field);
  }

  static String at(String pointer, int index) {
    return pointer + "/" + index;
  }
}
