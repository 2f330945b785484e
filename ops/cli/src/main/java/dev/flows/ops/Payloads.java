package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Payloads as people read them: an MCP result shown by its {@code structuredContent}, else its text
 * read as JSON when it is JSON (never JSON escaped inside a string); long payloads folded at a JSON
 * value, never cut inside one, with a note saying how much was left out and that {@code --full}
 * shows all.
 */
final class Payloads {
  /** A payload longer than this on one line is folded (its first members kept whole). */
  static final int LINE_LIMIT = 200;

  /** A pretty-printed payload longer than this many lines is folded (its first lines kept). */
  static final int LINES_LIMIT = 20;

  static final String FULL_HINT = "--full to see all";

  private Payloads() {}

  /**
   * What an MCP tool's result says: its {@code structuredContent}; else its one text content, read
   * as JSON when it is; else the result as it is.
   */
  static JsonNode readable(JsonNode result) {
    if (result.hasNonNull("structuredContent")) {
      return result.get("structuredContent");
    }
    JsonNode content = result.path("content");
    if (content.isArray() && content.size() == 1 && content.get(0).path("text").isTextual()) {
      String text = content.get(0).get("text").asText();
      return parsed(text).orElse(Session.JSON.getNodeFactory().textNode(text));
    }
    return result;
  }

  private static java.util.Optional<JsonNode> parsed(String text) {
    String t = text.strip();
    if (!(t.startsWith("{") || t.startsWith("["))) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.ofNullable(Session.JSON.readTree(t));
    } catch (IOException e) {
      return java.util.Optional.empty();
    }
  }

  /**
   * {@code node} on one line: whole when short or {@code full}; else an object or array keeps its
   * first members whole and says how many more there are.
   */
  static String oneLine(JsonNode node, boolean full) {
    String whole = node.toString();
    if (full || whole.length() <= LINE_LIMIT) {
      return whole;
    }
    if (!node.isContainerNode()) {
      return "(" + whole.length() + " characters, " + FULL_HINT + ")";
    }
    JsonNode kept =
        node.isObject() ? Session.JSON.createObjectNode() : Session.JSON.createArrayNode();
    int left = node.size();
    for (Iterator<Map.Entry<String, JsonNode>> it = members(node); it.hasNext(); ) {
      Map.Entry<String, JsonNode> m = it.next();
      JsonNode next = kept.deepCopy();
      add(next, m);
      if (next.toString().length() > LINE_LIMIT) {
        break;
      }
      kept = next;
      left--;
    }
    return kept
        + " … "
        + left
        + " more "
        + (node.isObject() ? "field" : "item")
        + (left == 1 ? "" : "s")
        + ", "
        + FULL_HINT;
  }

  private static Iterator<Map.Entry<String, JsonNode>> members(JsonNode node) {
    if (node.isObject()) {
      return node.fields();
    }
    List<Map.Entry<String, JsonNode>> items = new java.util.ArrayList<>();
    node.forEach(x -> items.add(Map.entry("", x)));
    return items.iterator();
  }

  private static void add(JsonNode container, Map.Entry<String, JsonNode> m) {
    if (container instanceof ObjectNode o) {
      o.set(m.getKey(), m.getValue());
    } else {
      ((ArrayNode) container).add(m.getValue());
    }
  }

  /**
   * {@code node} pretty-printed, one element per line: whole when short or {@code full}; else its
   * first lines and a last line {@code … N more lines, --full to see all}.
   */
  static List<String> lines(JsonNode node, boolean full) {
    List<String> all = node.toPrettyString().lines().toList();
    if (full || all.size() <= LINES_LIMIT) {
      return all;
    }
    List<String> kept = new java.util.ArrayList<>(all.subList(0, LINES_LIMIT));
    kept.add("… " + (all.size() - LINES_LIMIT) + " more lines, " + FULL_HINT);
    return kept;
  }
}
