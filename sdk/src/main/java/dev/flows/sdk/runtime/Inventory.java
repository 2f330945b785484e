package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.mcp.ToolDescriptor;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The MCP servers a run may call, frozen at preflight: each server's non-secret connection config,
 * whether it honours idempotency keys, and its tools with the hints that decide whether a call of
 * unknown outcome may be sent again, and the description and input schema a model is shown. Stored
 * in the root run's spec, so a replay on any worker uses exactly these.
 */
public record Inventory(JsonNode json) {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  public static Inventory empty() {
    return new Inventory(JSON.objectNode());
  }

  /**
   * One server as preflight saw it; {@code protocolVersion} is the MCP revision it answered in (""
   * when unknown).
   */
  public record Server(
      McpServerConfig config,
      boolean honoursIdempotencyKeys,
      List<ToolDescriptor> tools,
      String protocolVersion,
      Optional<dev.flows.sdk.TaskUse> tasks) {
    public Server(
        McpServerConfig config, boolean honoursIdempotencyKeys, List<ToolDescriptor> tools) {
      this(config, honoursIdempotencyKeys, tools, "");
    }

    public Server(
        McpServerConfig config,
        boolean honoursIdempotencyKeys,
        List<ToolDescriptor> tools,
        String protocolVersion) {
      this(config, honoursIdempotencyKeys, tools, protocolVersion, Optional.empty());
    }
  }

  public static Inventory of(List<Server> servers) {
    ObjectNode root = JSON.objectNode();
    for (Server s : servers) {
      ObjectNode n = root.putObject(s.config().name());
      n.set("connection", McpServerConfigJson.write(s.config()));
      n.put("idempotencyKeys", s.honoursIdempotencyKeys());
      if (!s.protocolVersion().isEmpty()) {
        n.put("protocolVersion", s.protocolVersion());
      }
      s.tasks().ifPresent(t -> n.put("tasks", t.wire()));
      ObjectNode tools = n.putObject("tools");
      for (ToolDescriptor t : s.tools()) {
        ObjectNode tn = tools.putObject(t.name());
        t.description().filter(d -> !d.isBlank()).ifPresent(d -> tn.put("description", d));
        compactSchema(t.inputSchema()).ifPresent(schema -> tn.set("inputSchema", schema));
        t.hints().readOnly().ifPresent(v -> tn.put("readOnlyHint", v));
        t.hints().idempotent().ifPresent(v -> tn.put("idempotentHint", v));
        t.hints().destructive().ifPresent(v -> tn.put("destructiveHint", v));
      }
    }
    return new Inventory(root);
  }

  /**
   * This inventory with each server's flows.json secret marks frozen beside its tools ({@code
   * secrets: {TOOL: {arguments, result}}}) and flows.json's key variables ({@code secretKeyEnvs},
   * names only); without either a server keeps its bytes.
   */
  public Inventory withSecrets(
      Map<String, Map<String, dev.flows.kernel.keys.SecretMarks>> marks, List<String> keyEnvs) {
    ObjectNode root = ((ObjectNode) json).deepCopy();
    if (!keyEnvs.isEmpty()) {
      root.forEach(
          n -> {
            if (n instanceof ObjectNode o) {
              keyEnvs.forEach(o.putArray("secretKeyEnvs")::add);
            }
          });
    }
    marks.forEach(
        (server, tools) -> {
          if (!tools.isEmpty() && root.get(server) instanceof ObjectNode n) {
            ObjectNode out = n.putObject("secrets");
            tools.forEach(
                (tool, m) -> {
                  ObjectNode t = out.putObject(tool);
                  m.arguments().forEach(t.putArray("arguments")::add);
                  m.result().forEach(t.putArray("result")::add);
                });
          }
        });
    return new Inventory(root);
  }

  /**
   * A tool's input schema as frozen: without {@code $schema} (every run would carry the same URL),
   * and absent when it says no more than {@link #OPEN_OBJECT}, which {@link #tool} answers then.
   */
  private static Optional<JsonNode> compactSchema(JsonNode schema) {
    if (!schema.isObject()) {
      return Optional.empty();
    }
    ObjectNode copy = ((ObjectNode) schema).deepCopy();
    copy.remove("$schema");
    return copy.equals(OPEN_OBJECT) ? Optional.empty() : Optional.of(copy);
  }

  /** The schema of a tool that takes any object: what a server with no stated schema accepts. */
  private static final JsonNode OPEN_OBJECT = JSON.objectNode().put("type", "object");

  /**
   * What a model is told about a tool: its name, the server's description ("" when none) and its
   * input schema, as {@code tools/list} gave them at preflight.
   */
  public record Tool(String server, String name, String description, JsonNode inputSchema) {}

  /** The frozen description of one tool, when the inventory lists it. */
  public Optional<Tool> tool(String server, String tool) {
    JsonNode t = json.path(server).path("tools").get(tool);
    if (t == null) {
      return Optional.empty();
    }
    return Optional.of(
        new Tool(
            server,
            tool,
            t.path("description").asText(""),
            t.has("inputSchema") ? t.get("inputSchema") : OPEN_OBJECT.deepCopy()));
  }

  /** The MCP revision the server answered in at preflight, when known. */
  public Optional<String> protocolVersion(String server) {
    return Optional.ofNullable(json.path(server).get("protocolVersion")).map(JsonNode::asText);
  }

  /** The server's flows.json {@code tasks}, when it says (frozen in the spec). */
  public Optional<dev.flows.sdk.TaskUse> tasks(String server) {
    return dev.flows.sdk.TaskUse.fromWire(json.path(server).path("tasks").asText(""));
  }

  /** The parts of a call of {@code tool} flows.json marks secret (frozen in the spec). */
  public dev.flows.kernel.keys.SecretMarks secrets(String server, String tool) {
    JsonNode t = json.path(server).path("secrets").path(tool);
    return new dev.flows.kernel.keys.SecretMarks(
        texts(t.path("arguments")), texts(t.path("result")));
  }

  /** The variables flows.json named for the run's secret keys (frozen in the spec). */
  public List<String> secretKeyEnvs(String server) {
    return texts(json.path(server).path("secretKeyEnvs"));
  }

  private static List<String> texts(JsonNode array) {
    java.util.ArrayList<String> out = new java.util.ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  public boolean hasServer(String server) {
    return json.has(server);
  }

  public boolean hasTool(String server, String tool) {
    return json.path(server).path("tools").has(tool);
  }

  public Optional<JsonNode> connection(String server) {
    return Optional.ofNullable(json.path(server).get("connection"));
  }

  /**
   * Whether a call whose outcome is unknown may be sent again with the same key: the tool says it
   * is read-only or idempotent, or the server honours idempotency keys.
   */
  public boolean mayReperform(String server, String tool) {
    JsonNode s = json.path(server);
    JsonNode t = s.path("tools").path(tool);
    return s.path("idempotencyKeys").asBoolean(false)
        || t.path("readOnlyHint").asBoolean(false)
        || t.path("idempotentHint").asBoolean(false);
  }

  public List<String> tools(String server) {
    java.util.ArrayList<String> out = new java.util.ArrayList<>();
    for (Iterator<String> it = json.path(server).path("tools").fieldNames(); it.hasNext(); ) {
      out.add(it.next());
    }
    return out;
  }

  public Map<String, JsonNode> servers() {
    java.util.LinkedHashMap<String, JsonNode> out = new java.util.LinkedHashMap<>();
    json.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }
}
