package dev.flows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Comparator;

/** JSON equality as a test means it: numbers by value (25000 as an int or a long is one number). */
final class SameJson {
  private static final Comparator<JsonNode> BY_VALUE =
      (a, b) -> {
        if (a.equals(b)) {
          return 0;
        }
        return a.isNumber() && b.isNumber() && a.decimalValue().compareTo(b.decimalValue()) == 0
            ? 0
            : 1;
      };

  private SameJson() {}

  static boolean same(JsonNode a, JsonNode b) {
    return a.equals(BY_VALUE, b);
  }
}
