package dev.flows.examples.servers;

import java.util.Map;
import java.util.Optional;

/** Typed reads of a tool call's arguments; a wrong or missing one is a {@link ToolError}. */
public record Args(Map<String, Object> raw, int maxTextChars) {
  public Args {
    raw = raw == null ? Map.of() : raw;
  }

  public String string(String name) {
    return optString(name).orElseThrow(() -> new ToolError("missing argument \"" + name + "\""));
  }

  public Optional<String> optString(String name) {
    Object v = raw.get(name);
    if (v == null) {
      return Optional.empty();
    }
    if (!(v instanceof String s)) {
      throw new ToolError("argument \"" + name + "\" must be a string");
    }
    if (s.length() > maxTextChars) {
      throw new ToolError(
          "argument \"" + name + "\" is longer than " + maxTextChars + " characters");
    }
    return Optional.of(s);
  }

  public String nonBlank(String name) {
    String s = string(name).strip();
    if (s.isEmpty()) {
      throw new ToolError("argument \"" + name + "\" must not be blank");
    }
    return s;
  }

  /** A whole number; JSON clients may send 500 as 500.0, which is accepted. */
  public long wholeNumber(String name) {
    Object v = raw.get(name);
    if (v == null) {
      throw new ToolError("missing argument \"" + name + "\"");
    }
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
      return n.longValue();
    }
    throw new ToolError("argument \"" + name + "\" must be a whole number");
  }
}
