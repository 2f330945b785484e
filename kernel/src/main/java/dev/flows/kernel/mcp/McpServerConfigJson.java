package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The non-secret form of a server's connection config, as frozen into a run's journal so that a
 * replay on any worker connects the same way. Its auth is written and read by {@link McpAuthJson}.
 */
public final class McpServerConfigJson {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private McpServerConfigJson() {}

  public static ObjectNode write(McpServerConfig c) {
    ObjectNode n = JSON.objectNode();
    switch (c) {
      case McpServerConfig.Stdio s -> {
        n.put("transport", "stdio").put("name", s.name()).put("command", s.command());
        strings(n.putArray("args"), s.args());
        strings(n.putArray("envAllowlist"), s.envAllowlist());
        ObjectNode env = n.putObject("env");
        s.env().forEach(env::put);
        s.cwd().ifPresent(d -> n.put("cwd", d));
      }
      case McpServerConfig.Http h -> {
        n.put("transport", "http").put("name", h.name()).put("url", h.url().toString());
        ObjectNode headers = n.putObject("headers");
        h.headers().forEach(headers::put);
        n.set("auth", McpAuthJson.write(h.auth()));
      }
    }
    // Only a pin is written, so the frozen form of an unpinned server stays as it always was.
    if (c.protocol() != McpProtocol.AUTO) {
      n.put("protocol", c.protocol().wire());
    }
    c.maxResultBytes().ifPresent(b -> n.putObject("limits").put("maxResultBytes", b));
    return n;
  }

  private static void strings(ArrayNode a, List<String> values) {
    values.forEach(a::add);
  }

  public static McpServerConfig read(JsonNode n) {
    McpProtocol protocol =
        McpProtocol.fromWire(n.path("protocol").asText("auto"))
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "unknown protocol in frozen server config: " + n.path("protocol")));
    JsonNode limit = n.path("limits").path("maxResultBytes");
    java.util.OptionalInt maxResultBytes =
        limit.isInt() ? java.util.OptionalInt.of(limit.asInt()) : java.util.OptionalInt.empty();
    return switch (readUnpinned(n)) {
      case McpServerConfig.Stdio s -> s.withProtocol(protocol).withMaxResultBytes(maxResultBytes);
      case McpServerConfig.Http h -> h.withProtocol(protocol).withMaxResultBytes(maxResultBytes);
    };
  }

  private static McpServerConfig readUnpinned(JsonNode n) {
    String name = n.path("name").asText();
    return switch (n.path("transport").asText()) {
      case "stdio" ->
          new McpServerConfig.Stdio(
              name,
              n.path("command").asText(),
              strings(n.path("args")),
              strings(n.path("envAllowlist")),
              stringMap(n.path("env")),
              n.hasNonNull("cwd") ? Optional.of(n.get("cwd").asText()) : Optional.empty());
      case "http" ->
          new McpServerConfig.Http(
              name,
              URI.create(n.path("url").asText()),
              stringMap(n.path("headers")),
              McpAuthJson.read(n.path("auth")));
      default ->
          throw new IllegalArgumentException(
              "unknown transport in frozen server config: " + n.path("transport"));
    };
  }

  private static List<String> strings(JsonNode a) {
    List<String> out = new ArrayList<>();
    a.forEach(v -> out.add(v.asText()));
    return out;
  }

  private static Map<String, String> stringMap(JsonNode o) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }
}
