package dev.flows.kernel.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one strict JSON reader: every hand-written format (a run spec, an instruction, {@code
 * flows.json}) reads through it, so unknown fields, wrong types and missing required fields are
 * refused by the same rules everywhere. Each caller keeps its own refusal (code, message and fix)
 * through a {@link Refusal} that turns a {@link Problem} at a {@link Place} into its exception.
 */
public final class StrictJson {
  private final Refusal refusal;

  public StrictJson(Refusal refusal) {
    this.refusal = refusal;
  }

  /** The shapes a value is read as. */
  public enum Expected {
    OBJECT("an object"),
    STRING("a string"),
    BOOLEAN("a boolean"),
    STRING_ARRAY("an array of strings"),
    STRING_MAP("an object of strings"),
    VALUE("a JSON value");

    private final String described;

    Expected(String described) {
      this.described = described;
    }

    /** The shape in words, e.g. "an array of strings". */
    public String described() {
      return described;
    }
  }

  /** What is wrong at a place. */
  public sealed interface Problem {
    /** The object holds a field not allowed there; {@code allowed} is in the caller's order. */
    record UnknownField(String field, Collection<String> allowed) implements Problem {}

    /** A required field is absent. */
    record Missing(Expected expected) implements Problem {}

    /** The value is not of the expected shape. */
    record WrongType(JsonNode value, Expected expected) implements Problem {}

    /** An element (an array index or a map key) of a container is not a string. */
    record WrongElement(String element, JsonNode value, Expected container) implements Problem {}
  }

  /**
   * Where a problem is: a value at {@code parent}, or the field {@code key} of the object there.
   * Callers that speak JSON pointers use {@link #pointer()}; others compose their own place.
   */
  public record Place(String parent, Optional<String> key) {
    public static Place at(String pointer) {
      return new Place(pointer, Optional.empty());
    }

    public static Place field(String parent, String key) {
      return new Place(parent, Optional.of(key));
    }

    /** The RFC 6901 pointer of the place. */
    public String pointer() {
      return key.map(k -> StrictJson.pointer(parent, k)).orElse(parent);
    }
  }

  /** Builds a caller's refusal of a problem. */
  @FunctionalInterface
  public interface Refusal {
    RuntimeException refuse(Place place, Problem problem);
  }

  /** RFC 6901: "~" and "/" inside a reference token are escaped as "~0" and "~1". */
  public static String pointer(String parent, String key) {
    return parent + "/" + key.replace("~", "~0").replace("/", "~1");
  }

  public ObjectNode object(JsonNode v, Place place) {
    if (!v.isObject()) {
      throw refusal.refuse(place, new Problem.WrongType(v, Expected.OBJECT));
    }
    return (ObjectNode) v;
  }

  /** Refuses the first field of {@code o} (at {@code parent}) that is not allowed. */
  public void onlyFields(JsonNode o, String parent, Collection<String> allowed) {
    for (Map.Entry<String, JsonNode> f : o.properties()) {
      if (!allowed.contains(f.getKey())) {
        throw refusal.refuse(
            Place.field(parent, f.getKey()), new Problem.UnknownField(f.getKey(), allowed));
      }
    }
  }

  /** The field {@code key} of {@code o}, refused as missing when absent. */
  public JsonNode required(JsonNode o, String parent, String key, Expected expected) {
    JsonNode v = o.get(key);
    if (v == null) {
      throw refusal.refuse(Place.field(parent, key), new Problem.Missing(expected));
    }
    return v;
  }

  public String string(JsonNode v, Place place) {
    if (!v.isTextual()) {
      throw refusal.refuse(place, new Problem.WrongType(v, Expected.STRING));
    }
    return v.textValue();
  }

  /** A required string field. */
  public String string(JsonNode o, String parent, String key) {
    return string(required(o, parent, key, Expected.STRING), Place.field(parent, key));
  }

  public Optional<String> optionalString(JsonNode o, String parent, String key) {
    return Optional.ofNullable(o.get(key)).map(v -> string(v, Place.field(parent, key)));
  }

  /** A required object field. */
  public ObjectNode object(JsonNode o, String parent, String key) {
    return object(required(o, parent, key, Expected.OBJECT), Place.field(parent, key));
  }

  public Optional<Boolean> optionalBoolean(JsonNode o, String parent, String key) {
    JsonNode v = o.get(key);
    if (v == null) {
      return Optional.empty();
    }
    if (!v.isBoolean()) {
      throw refusal.refuse(Place.field(parent, key), new Problem.WrongType(v, Expected.BOOLEAN));
    }
    return Optional.of(v.booleanValue());
  }

  /** An array of strings, in order. */
  public List<String> strings(JsonNode v, Place place) {
    if (!v.isArray()) {
      throw refusal.refuse(place, new Problem.WrongType(v, Expected.STRING_ARRAY));
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < v.size(); i++) {
      JsonNode e = v.get(i);
      if (!e.isTextual()) {
        throw refusal.refuse(
            place, new Problem.WrongElement(Integer.toString(i), e, Expected.STRING_ARRAY));
      }
      out.add(e.textValue());
    }
    return List.copyOf(out);
  }

  public Optional<List<String>> optionalStrings(JsonNode o, String parent, String key) {
    return Optional.ofNullable(o.get(key)).map(v -> strings(v, Place.field(parent, key)));
  }

  /** An object whose values are strings, in the order written. */
  public Map<String, String> stringMap(JsonNode v, Place place) {
    if (!v.isObject()) {
      throw refusal.refuse(place, new Problem.WrongType(v, Expected.STRING_MAP));
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : v.properties()) {
      if (!e.getValue().isTextual()) {
        throw refusal.refuse(
            place, new Problem.WrongElement(e.getKey(), e.getValue(), Expected.STRING_MAP));
      }
      out.put(e.getKey(), e.getValue().textValue());
    }
    return out;
  }

  public Optional<Map<String, String>> optionalStringMap(JsonNode o, String parent, String key) {
    return Optional.ofNullable(o.get(key)).map(v -> stringMap(v, Place.field(parent, key)));
  }
}
